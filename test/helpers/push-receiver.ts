import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { expect } from 'vitest';

/** One POST the receiver took. */
export interface ReceivedNotification {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface PushReceiver {
  /** `http://127.0.0.1:<port>`: a test's webhook URL is this plus a path of its own. */
  url: string;
  received: ReceivedNotification[];
  /** Answer 503 to `path` until `accept(path)`, counting the refusals. */
  refuse(path: string): void;
  accept(path: string): void;
  refusals(): number;
  close(): Promise<void>;
}

/** A webhook receiver on loopback (port 0) that records every notification and answers 200. */
export async function startPushReceiver(): Promise<PushReceiver> {
  const received: ReceivedNotification[] = [];
  const refusing = new Set<string>();
  let refusals = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (refusing.has(req.url ?? '')) {
        refusals++;
        return void res.writeHead(503).end();
      }
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    refuse: (path) => void refusing.add(path),
    accept: (path) => void refusing.delete(path),
    refusals: () => refusals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A notification's event in 1.0 terms, whichever version its config was set in (1.0 StreamResponse or bare 0.3 event). */
export function eventOf(notification: ReceivedNotification): { kind: string; taskId: string; state?: string } {
  const body = JSON.parse(notification.body);
  if (typeof body.kind === 'string') {
    const kind = ({ task: 'task', 'status-update': 'statusUpdate', 'artifact-update': 'artifactUpdate', message: 'message' } as Record<string, string>)[body.kind] ?? body.kind;
    const state = body.status?.state as string | undefined;
    return { kind, taskId: kind === 'task' ? body.id : body.taskId, ...(state ? { state: `TASK_STATE_${state.toUpperCase().replaceAll('-', '_')}` } : {}) };
  }
  const [kind, value] = Object.entries(body)[0] as [string, { id?: string; taskId?: string; status?: { state?: string } }];
  return { kind, taskId: (kind === 'task' ? value.id : value.taskId) ?? '', ...(value.status?.state ? { state: value.status.state } : {}) };
}

/** Which event a notification carries, as the member of a 1.0 StreamResponse: `task`, `statusUpdate`, `artifactUpdate` or `message`. */
export const kindOf = (notification: ReceivedNotification) => eventOf(notification).kind;

/**
 * The notifications that reached `path`, once the last one is `taskId`'s completed status (the
 * service sends them from its background work, so they come some time after the task ends).
 */
export async function notificationsAt(receiver: PushReceiver, path: string, taskId: string): Promise<ReceivedNotification[]> {
  for (;;) {
    const mine = receiver.received.filter((n) => n.path === path);
    const last = mine.at(-1) && eventOf(mine.at(-1)!);
    if (last && last.kind === 'statusUpdate' && last.taskId === taskId && last.state === 'TASK_STATE_COMPLETED') return mine;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits for a task's notifications at `path` and checks them as a receiver would: each JWT
 * against the JWKS the service publishes (signature, `typ`, `iss`, `aud` = the webhook URL), its
 * claims (task, config, `seq` = `X-A2A-Notification-Seq`, the body's SHA-256), the config's token
 * and `Authorization` (its credentials, else the JWT as a bearer), and the order: sequence numbers
 * strictly increasing.
 */
export async function expectSignedDeliveries(
  receiver: PushReceiver,
  serviceUrl: string,
  expected: { path: string; taskId: string; configId?: string; token?: string; authorization?: string },
): Promise<ReceivedNotification[]> {
  const delivered = await notificationsAt(receiver, expected.path, expected.taskId);
  const jwks = createRemoteJWKSet(new URL(`${serviceUrl}/.well-known/jwks.json`));
  for (const notification of delivered) {
    const jwt = notification.headers['x-a2a-notification-jwt'] as string;
    const { payload } = await jwtVerify(jwt, jwks, { issuer: serviceUrl, audience: `${receiver.url}${expected.path}`, typ: 'a2a-push+jwt' });
    expect(payload).toMatchObject({
      taskId: expected.taskId,
      ...(expected.configId ? { configId: expected.configId } : {}),
      seq: Number(notification.headers['x-a2a-notification-seq']),
      request_body_sha256: createHash('sha256').update(notification.body).digest('hex'),
    });
    expect(notification.headers['x-a2a-notification-token']).toBe(expected.token);
    expect(notification.headers.authorization).toBe(expected.authorization ?? `Bearer ${jwt}`);
  }
  const seqs = delivered.map((n) => Number(n.headers['x-a2a-notification-seq']));
  expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
  return delivered;
}
