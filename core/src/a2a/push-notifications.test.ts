import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { SIGNING_ALG } from '../auth/oauth/index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';
import { createPushDispatcher } from './push/index.ts';

/**
 * A2A push notifications end to end in one process: the config methods of the three bindings
 * (JSON-RPC 1.0, JSON-RPC 0.3, HTTP+JSON), one store, and deliveries that a receiver here checks
 * against the service's JWKS. The dispatcher's passes are run by the test (the web process runs
 * them in its background work).
 */
const t = useTestDatabase();
let services: ReturnType<typeof testServices>;
let token: string;
let otherToken: string;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const origin = 'http://127.0.0.1:3999';
/** Every process of the service in this file shares the master key, as a restarted one does. */
const env = { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: records every POST, answering each with the next queued status (200 once they run out). */
function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const status = statuses.shift() ?? 200;
      if (status === 200) received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  return {
    received,
    statuses,
    server,
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let receiver: ReturnType<typeof startReceiver>;
let hook: string;

beforeAll(async () => {
  services = testServices(t.db, env);
  await installExampleAgents(t.db, '@acme');
  const mine = await services.oauth.clients.register(admin, { name: 'peer', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = (await services.oauth.tokens.issue(mine.client)).access_token;
  const theirs = await services.oauth.clients.register(admin, { name: 'other', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  otherToken = (await services.oauth.tokens.issue(theirs.client)).access_token;
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
  receiver = startReceiver();
  hook = `${await receiver.listen()}/hook`;
});

afterAll(async () => {
  await receiver.close();
});

beforeEach(async () => {
  receiver.received.length = 0;
  receiver.statuses.length = 0;
  const models = t.db.models as unknown as Record<string, { deleteMany?: (filter: object) => Promise<unknown> } | undefined>;
  await models.PushConfig?.deleteMany?.({});
  await models.PushDelivery?.deleteMany?.({});
  await models.PushCursor?.deleteMany?.({});
});

let counter = 0;
const message = (text: string) => ({ messageId: `push-${Date.now()}-${counter++}`, role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: '@acme/summarizer' } });

async function rpc(method: string, params: unknown, options: { bearer?: string; version?: string; on?: Services } = {}) {
  const response = await (options.on ?? services).handlers.a2a(
    new Request(`${origin}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.bearer ?? token}`, ...(options.version ? { 'a2a-version': options.version } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
  );
  return (await response.json()) as { result?: any; error?: { code: number; message: string } };
}

async function rest(method: string, path: string, body?: unknown) {
  const response = await services.handlers.a2aRest(
    new Request(`${origin}/api/a2a${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) }),
  );
  return { status: response.status, body: (await response.json()) as any };
}

/** Passes of the dispatcher until nothing more is enqueued or delivered now. */
async function deliverAll(on: Services = services) {
  const dispatcher = (on as unknown as { push?: { dispatcher: { pass(): Promise<{ enqueued: number; delivered: number; failed: number }> } } }).push?.dispatcher;
  expect(dispatcher, 'the service has a push dispatcher').toBeDefined();
  for (let i = 0; i < 20; i++) {
    const { enqueued, delivered, failed } = await dispatcher!.pass();
    if (enqueued + delivered + failed === 0) return;
  }
}

async function serviceJwks() {
  return createLocalJWKSet((await (await services.handlers.jwks(new Request(`${origin}/.well-known/jwks.json`))).json()) as JSONWebKeySet);
}

/** What a receiver does with one notification: checks its JWT with the service's JWKS, then reads it. */
async function verified(notification: Received, url = hook) {
  const jwt = notification.headers['x-a2a-notification-jwt'] as string;
  const { payload, protectedHeader } = await jwtVerify(jwt, await serviceJwks(), { issuer: origin, audience: url, typ: 'a2a-push+jwt' });
  expect(protectedHeader.kid).toBeTruthy();
  expect(payload.request_body_sha256).toBe(createHash('sha256').update(notification.body).digest('hex'));
  expect(String(payload.seq)).toBe(notification.headers['x-a2a-notification-seq']);
  return { payload, body: JSON.parse(notification.body) as Record<string, any> };
}

describe('A2A push notifications', () => {
  it('delivers every event of a task, in order, signed with the service key, to a config sent with the message', async () => {
    const sent = await rpc('SendMessage', {
      message: message('Push every status. Please.'),
      configuration: { taskPushNotificationConfig: { url: hook, token: 'tok-for-this-task', authentication: { scheme: 'Bearer', credentials: 'receiver-secret' } } },
    });
    expect(sent.error).toBeUndefined();
    const task = sent.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    await deliverAll();

    const notifications = await Promise.all(receiver.received.map((n) => verified(n)));
    expect(notifications.map(({ body }) => Object.keys(body)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(notifications.map(({ payload }) => payload.seq)).toEqual([1, 2, 3, 4]);
    expect(notifications.map(({ body }) => body.task?.status.state ?? body.statusUpdate?.status.state ?? 'artifact')).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
    for (const { payload, body } of notifications) {
      expect(payload.taskId).toBe(task.id);
      expect(body.task?.id ?? body.statusUpdate?.taskId ?? body.artifactUpdate?.taskId).toBe(task.id);
    }
    // The config's own credentials and token, as the spec says; the JWT rides in its own header.
    expect(receiver.received.every((n) => n.headers.authorization === 'Bearer receiver-secret' && n.headers['x-a2a-notification-token'] === 'tok-for-this-task')).toBe(true);
    expect(receiver.received[0]!.headers['content-type']).toBe('application/a2a+json');
    // A notification's JWT is no access token, though signed with the same key.
    await expect(services.oauth.tokens.verify(receiver.received[0]!.headers['x-a2a-notification-jwt'] as string)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    // Delivered rows leave the outbox; nothing is sent twice by a later pass.
    expect(await t.db.models.PushDelivery.countDocuments({})).toBe(0);
    await deliverAll();
    expect(receiver.received).toHaveLength(4);
  });

  it('sets, reads, lists and deletes configs; secrets are sealed at rest, never shown back and never logged', async () => {
    const { task } = (await rpc('SendMessage', { message: message('Configs later. Fine.') })).result;
    const created = await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'mine', url: hook, token: 'secret-token-value', authentication: { scheme: 'Bearer', credentials: 'secret-credentials-value' } });
    expect(created.result).toEqual({ id: 'mine', taskId: task.id, url: hook, authentication: { scheme: 'Bearer' } });
    expect((await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'mine' })).result).toEqual(created.result);
    const generated = (await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: `${hook}/2` })).result;
    expect(generated.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result).toEqual({ configs: [created.result, generated], nextPageToken: '' });

    const stored = JSON.stringify(await t.db.models.PushConfig.find({}).lean());
    expect(stored).not.toContain('secret-token-value');
    expect(stored).not.toContain('secret-credentials-value');

    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'mine' })).result).toEqual({});
    // Deleting again is no error (the spec's idempotence); reading it is not found.
    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'mine' })).result).toEqual({});
    expect((await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'mine' })).error?.code).toBe(-32001);
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result.configs).toEqual([generated]);
    expect(JSON.stringify(services.logger.records)).not.toMatch(/secret-token-value|secret-credentials-value/);
  });

  it('refuses a webhook on a private or metadata address outside the operator\'s allowance, and again at delivery', async () => {
    const strict = testServices(t.db, { ...env, SERVICE_OUTBOUND_ALLOW_PRIVATE: 'false' });
    const { task } = (await rpc('SendMessage', { message: message('No SSRF. Please.') }, { on: strict })).result;
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:9/hook', 'http://[::1]/hook', 'http://10.0.0.8/hook', 'file:///etc/passwd']) {
      const refused = await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url }, { on: strict });
      expect(refused.error, url).toMatchObject({ code: -32602, message: expect.stringMatching(/url/) });
    }
    const sent = await rpc('SendMessage', { message: message('Nor here. Ok.'), configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/hook' } } }, { on: strict });
    expect(sent.error?.code).toBe(-32602);
    expect(await t.db.models.PushConfig.countDocuments({})).toBe(0);

    // Set where loopback is allowed (the tests' allowance), delivered by a process where it is not: refused at delivery.
    const { task: fresh } = (await rpc('SendMessage', { message: message('A new one. Yes.'), configuration: { taskPushNotificationConfig: { url: hook } } })).result;
    await deliverAll(strict);
    expect(receiver.received).toEqual([]);
    // Each was given up at once (no later attempt can do better) and said so in the log.
    expect(await t.db.models.PushDelivery.countDocuments({ runId: fresh.id })).toBe(0);
    const givenUp = strict.logger.records.filter((record) => record.message === 'push notification given up' && record.fields.runId === fresh.id);
    expect(givenUp.map((record) => record.fields.seq)).toEqual([1, 2, 3, 4]);
    expect(givenUp.every((record) => /SERVICE_OUTBOUND_ALLOW_PRIVATE/.test(String(record.fields.reason)))).toBe(true);
  });

  it('keeps each client to its own tasks and configs', async () => {
    const { task } = (await rpc('SendMessage', { message: message('Mine alone. Yes.') })).result;
    expect((await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c1', url: hook })).error).toBeUndefined();
    for (const [method, params] of [
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: hook }],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }],
      ['tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: { url: hook } }],
      ['tasks/pushNotificationConfig/list', { id: task.id }],
    ] as const) {
      expect((await rpc(method, params, { bearer: otherToken })).error?.code, method).toBe(-32001);
    }
    expect((await rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'c1' })).result.id).toBe('c1');
  });

  it('allows at most 10 configs per task', async () => {
    const { task } = (await rpc('SendMessage', { message: message('Many hooks. Ok.') })).result;
    for (let i = 0; i < 10; i++) expect((await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: `c${i}`, url: `${hook}/${i}` })).error).toBeUndefined();
    expect((await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c10', url: hook })).error).toMatchObject({ code: -32602, message: expect.stringMatching(/at most 10/) });
    // Setting one of the ten again replaces it; after a delete there is room again.
    expect((await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c3', url: `${hook}/again` })).result.url).toBe(`${hook}/again`);
    await rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c0' });
    expect((await rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c10', url: hook })).error).toBeUndefined();
  });

  it('retries a delivery that failed, from the outbox, in order, also from a freshly started process', async () => {
    receiver.statuses.push(503, 503);
    const { task } = (await rpc('SendMessage', { message: message('Retry me. Twice.'), configuration: { taskPushNotificationConfig: { url: hook } } })).result;
    await deliverAll();
    // The first notification failed twice (503 is worth retrying): it waits, and holds the later ones behind it.
    expect(receiver.received).toEqual([]);
    const rows = await t.db.models.PushDelivery.find({ runId: task.id }).sort({ _id: 1 }).lean();
    expect(rows.map((row) => [row.seq, row.attempts])).toEqual([[1, 1], [2, 0], [3, 0], [4, 0]]);
    expect(rows[0]).toMatchObject({ attempts: 1, lastError: 'HTTP 503' });
    // A new process (same database, nothing in memory) sends them once they fall due.
    const restarted = testServices(t.db, env);
    for (let attempt = 2; attempt <= 3; attempt++) {
      await t.db.models.PushDelivery.updateMany({ runId: task.id }, { $set: { nextAttemptAt: new Date(0) } });
      await deliverAll(restarted);
    }
    expect(receiver.received.map((n) => Number(n.headers['x-a2a-notification-seq']))).toEqual([1, 2, 3, 4]);
    expect(await t.db.models.PushDelivery.countDocuments({})).toBe(0);
  });

  it('sends each notification once and in order when two processes run their passes at once', async () => {
    const other = testServices(t.db, env);
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push((await rpc('SendMessage', { message: message(`Two senders ${i}. Yes.`), configuration: { taskPushNotificationConfig: { url: `${hook}/${i}` } } })).result.task.id as string);
    await Promise.all([deliverAll(), deliverAll(other), deliverAll(), deliverAll(other)]);
    for (let i = 0; i < 3; i++) {
      const seqs = receiver.received.filter((n) => n.path === `/hook/${i}`).map((n) => Number(n.headers['x-a2a-notification-seq']));
      expect(seqs, tasks[i]).toEqual([1, 2, 3, 4]);
    }
  });

  it('enqueues nothing twice when a pass that read the cursors waits while another enqueues and sends their events', async () => {
    const weak = async () => ({ kind: 'ferretdb', atomicUpdates: false, ttlIndexes: false }) as const;
    const modes = [
      { name: 'as this server decides races', profile: t.db.profile, lapsed: false },
      // FerretDB 1.x's way (claims), with the slow pass's read older than a claim's lapse: the claim alone would let it in again.
      { name: 'by claims, the slow read older than their lapse', profile: weak, lapsed: true },
    ];
    const dispatcher = (profile: typeof t.db.profile, models = t.db.models, readAfter = services.eventLog.readAfter.bind(services.eventLog)) =>
      createPushDispatcher({
        models,
        profile,
        eventLog: { readAfter },
        configs: services.push.configs,
        outbound: services.outbound,
        signer: { key: async () => ({ ...(await services.oauth.keys.current()), alg: SIGNING_ALG }), issuer: () => origin },
        logger: services.logger,
      });
    const drain = async (target: ReturnType<typeof dispatcher>) => {
      for (let i = 0; i < 20; i++) {
        const { enqueued, delivered, failed } = await target.pass();
        if (enqueued + delivered + failed === 0) return;
      }
    };
    for (const mode of modes) {
      // Where the slow pass waits: before it takes the cursor (it read it, then the run's next events), or after (it reads the events).
      for (const waitsAt of ['before the take', 'after the take'] as const) {
        receiver.received.length = 0;
        const { task } = (await rpc('SendMessage', { message: message(`Slow sender ${waitsAt} ${mode.lapsed}. Yes.`), configuration: { taskPushNotificationConfig: { url: hook } } })).result;
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let reached!: () => void;
        const waiting = new Promise<void>((resolve) => (reached = resolve));
        const hold = async () => {
          reached();
          await gate;
        };
        const runEvents = t.db.models.RunEvent.collection;
        const models = waitsAt === 'before the take'
          ? { ...t.db.models, RunEvent: { collection: { find: (...args: Parameters<typeof runEvents.find>) => ({ toArray: async () => (await hold(), runEvents.find(...args).toArray()) }) } } }
          : t.db.models;
        const slow = dispatcher(mode.profile, models as typeof t.db.models, async (...args) => (await hold(), services.eventLog.readAfter(...args)));
        const quick = dispatcher(mode.profile);
        const slowPass = slow.enqueue();
        await waiting;
        await drain(quick);
        if (mode.lapsed) await t.db.models.Claim.updateMany({}, { $set: { at: new Date(Date.now() - 10 * 60_000) } });
        release();
        await slowPass;
        await drain(quick);
        expect(receiver.received.map((n) => Number(n.headers['x-a2a-notification-seq'])), `${task.id}, ${mode.name}, waiting ${waitsAt}`).toEqual([1, 2, 3, 4]);
        expect(await t.db.models.PushCursor.countDocuments({ runId: task.id })).toBe(0);
      }
    }
  });

  it('reaches every config when there are more than a pass reads: each pass goes on where the last stopped', async () => {
    const small = createPushDispatcher({
      models: t.db.models,
      profile: t.db.profile,
      eventLog: services.eventLog,
      configs: services.push.configs,
      outbound: services.outbound,
      signer: { key: async () => ({ ...(await services.oauth.keys.current()), alg: SIGNING_ALG }), issuer: () => origin },
      logger: services.logger,
      options: { cursorsPerPass: 2, deliveriesPerPass: 3 },
    });
    // First in key order and there to stay: cursors of tasks that wait for good, and a backlog in backoff.
    await t.db.models.PushCursor.create([0, 1, 2].map((i) => ({ _id: `0000-waiting-${i}`, runId: `no-such-run-${i}`, contextId: 'c', protocol: '1.0' as const, enqueuedSeq: 5 })));
    await t.db.models.PushDelivery.create([1, 2, 3, 4].map((seq) => ({ _id: `0000-backlog/${String(seq).padStart(12, '0')}`, configRef: '0000-backlog', runId: 'r', seq, body: '{}', attempts: 1, nextAttemptAt: new Date(Date.now() + 3_600_000), leaseUntil: new Date(0) })));
    for (let i = 0; i < 5; i++) await rpc('SendMessage', { message: message(`Paged ${i}. Yes.`), configuration: { taskPushNotificationConfig: { url: `${hook}/paged/${i}` } } });
    for (let pass = 0; pass < 40; pass++) await small.pass();
    expect(await t.db.models.PushDelivery.countDocuments({ configRef: '0000-backlog' })).toBe(4);
    for (let i = 0; i < 5; i++) {
      expect(receiver.received.filter((n) => n.path === `/hook/paged/${i}`).map((n) => Number(n.headers['x-a2a-notification-seq']))).toEqual([1, 2, 3, 4]);
    }
  });

  it('reaches the same store from the 0.3 methods and the HTTP+JSON paths, each notified in its own version', async () => {
    const { task } = (await rpc('SendMessage', { message: message('Versions meet. Good.') })).result;
    // 0.3: a config without an id takes the task's; get without a config id means that one.
    const set03 = await rpc('tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: { url: `${hook}/v03`, authentication: { schemes: ['Bearer'] } } });
    expect(set03.result).toEqual({ taskId: task.id, pushNotificationConfig: { id: task.id, url: `${hook}/v03`, authentication: { schemes: ['Bearer'] } } });
    expect((await rpc('tasks/pushNotificationConfig/get', { id: task.id })).result).toEqual(set03.result);
    // HTTP+JSON: POST /tasks/{id}/pushNotificationConfigs, the task's id from the path.
    const created = await rest('POST', `/tasks/${task.id}/pushNotificationConfigs`, { id: 'rest', url: `${hook}/rest` });
    expect(created).toEqual({ status: 200, body: { id: 'rest', taskId: task.id, url: `${hook}/rest` } });
    expect((await rest('GET', `/tasks/${task.id}/pushNotificationConfigs/rest`)).body).toEqual(created.body);

    const v1List = (await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result.configs.map((c: { id: string }) => c.id);
    expect(v1List.sort()).toEqual(['rest', task.id].sort());
    expect((await rpc('tasks/pushNotificationConfig/list', { id: task.id })).result.map((c: any) => c.pushNotificationConfig.id).sort()).toEqual(['rest', task.id].sort());
    expect((await rest('GET', `/tasks/${task.id}/pushNotificationConfigs`)).body.configs).toHaveLength(2);

    // A task that goes on (a message on a finished task is refused, so a new one) notifies each config in the shape of its version.
    const paused = (await rpc('SendMessage', { message: { ...message('A draft to review. Short.'), metadata: { skillId: '@acme/editorial-review' } } })).result.task;
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await rpc('tasks/pushNotificationConfig/set', { taskId: paused.id, pushNotificationConfig: { id: 'old', url: `${hook}/v03` } });
    await rest('POST', `/tasks/${paused.id}/pushNotificationConfigs`, { id: 'new', url: `${hook}/rest` });
    const answered = await rpc('SendMessage', { message: { messageId: `push-answer-${counter++}`, role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { approved: true } }] } });
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await deliverAll();
    const v03 = receiver.received.filter((n) => n.path === '/hook/v03').map((n) => JSON.parse(n.body));
    const v1 = receiver.received.filter((n) => n.path === '/hook/rest').map((n) => JSON.parse(n.body));
    expect(v03.length).toBeGreaterThan(0);
    expect(v03.every((body) => typeof body.kind === 'string')).toBe(true);
    expect(v03.at(-1)).toMatchObject({ kind: 'status-update', taskId: paused.id, status: { state: 'completed' }, final: true });
    expect(v1.at(-1)).toMatchObject({ statusUpdate: { taskId: paused.id, status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(v1.map((body) => Object.keys(body)[0])).toEqual(v03.map((body) => (body.kind === 'status-update' ? 'statusUpdate' : body.kind === 'artifact-update' ? 'artifactUpdate' : body.kind)));

    expect((await rest('DELETE', `/tasks/${task.id}/pushNotificationConfigs/rest`)).body).toEqual({});
    expect((await rpc('tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: task.id })).result).toBeNull();
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId: task.id })).result.configs).toEqual([]);
  });

  it('says pushNotifications: true on both cards', async () => {
    expect((await services.agentCard()).capabilities.pushNotifications).toBe(true);
    expect(((await services.cardV1(null)) as { capabilities: { pushNotifications: boolean } }).capabilities.pushNotifications).toBe(true);
  });
});
