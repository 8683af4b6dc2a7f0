import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSource, loadExample } from '../agents/index.ts';
import { createExtensionWriter } from '../extensions/index.ts';
import type { Services } from '../index.ts';
import { fuzzParameters, testServices, useTestDatabase, within } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
let token: string;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const KNOWN_CODES = [-32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32050, -32051, -32052, -32053, -32056];

beforeAll(async () => {
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  const source = loadExample('summarizer', '@acme');
  const compiled = compileSource(source);
  await createExtensionWriter(t.db.models).install({ source, compiled, origin: { packageName: compiled.packageName, version: compiled.version, destinationId: null, scope: '@acme', visibility: 'public', registryUrl: 'http://r.test/' } });
  const { client } = await services.oauth.clients.register(admin, { name: 'fuzzer', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = (await services.oauth.tokens.issue(client)).access_token;
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
});

// Mostly well-formed, so the fuzz reaches the params and the run paths, with malformed ones mixed in.
const often = <T, U>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>): fc.Arbitrary<T | U> => fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: odd, weight: 1 });
const methods = often(fc.constantFrom('message/send', 'message/stream', 'message/sendStreaming', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'SendMessage', 'GetTask'), fc.constantFrom('unknown/method', '', 'tasks/pushNotificationConfig/set'));
const part = often(
  fc.oneof(fc.record({ kind: fc.constant('text'), text: fc.string({ maxLength: 200 }) }), fc.record({ kind: fc.constant('data'), data: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 })) })),
  fc.oneof(fc.record({ kind: fc.string({ maxLength: 8 }), text: fc.anything({ maxDepth: 2 }) }), fc.record({ text: fc.string() }), fc.jsonValue({ maxDepth: 2 })),
);
const messageLike = fc.record(
  {
    kind: often(fc.constant('message'), fc.constantFrom('task', 'x')),
    messageId: often(fc.uuid(), fc.oneof(fc.string({ maxLength: 300 }), fc.integer())),
    role: often(fc.constant('user'), fc.constantFrom('agent', 'ROLE_USER', 'system')),
    parts: often(fc.array(part, { minLength: 1, maxLength: 4 }), fc.array(part, { maxLength: 2 })),
    taskId: often(fc.constant(undefined), fc.oneof(fc.uuid(), fc.string({ maxLength: 50 }), fc.constant('~e/x'), fc.constant('~'))),
    contextId: often(fc.constant(undefined), fc.oneof(fc.uuid(), fc.string({ maxLength: 50 }))),
    metadata: often(fc.constant(undefined), fc.dictionary(fc.constantFrom('skillId', 'x'), fc.oneof(fc.constant('@acme/summarizer'), fc.jsonValue({ maxDepth: 2 })))),
  },
  { requiredKeys: ['kind', 'messageId', 'role', 'parts'] },
);
const taskIdParams = fc.record({ id: often(fc.uuid(), fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant('~l/x'))), historyLength: often(fc.constant(undefined), fc.integer()) });
const rpcId = often(fc.oneof(fc.integer(), fc.string({ maxLength: 40 })), fc.oneof(fc.constant(null), fc.object()));
const jsonrpc = often(fc.constant('2.0'), fc.constantFrom('1.0', 2 as unknown as string));
const sendEnvelope = fc.record({ jsonrpc, id: rpcId, method: fc.constantFrom('message/send', 'message/stream', 'message/sendStreaming', 'SendMessage'), params: fc.record({ message: messageLike, configuration: often(fc.constant(undefined), fc.record({ blocking: fc.boolean() })) }) });
const taskEnvelope = fc.record({ jsonrpc, id: rpcId, method: fc.constantFrom('tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'GetTask'), params: taskIdParams });
const oddEnvelope = fc.record({ jsonrpc, id: rpcId, method: methods, params: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: ['jsonrpc', 'method'] });
const envelope = fc.oneof({ arbitrary: sendEnvelope, weight: 4 }, { arbitrary: taskEnvelope, weight: 2 }, { arbitrary: oddEnvelope, weight: 1 });
const body = often(envelope.map((e) => JSON.stringify(e)), fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.string({ maxLength: 300 }), fc.array(envelope, { maxLength: 3 }).map((b) => JSON.stringify(b))));

describe('fuzzing /api/a2a (JSON-RPC envelopes and A2A params)', () => {
  it('answers every body with a JSON-RPC error or a result (never a 5xx, an internal error, a crash or a hang)', async () => {
    const outcomes = new Map<number | string, number>();
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('', 'key-1'), fc.option(fc.constantFrom('0', '3', '-1', 'abc', '999999999999')), async (text, idempotencyKey, lastEventId) => {
        const response = await within(10_000, services.handlers.a2a(
          new Request('http://127.0.0.1:3999/api/a2a', {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
            body: text,
          }),
        ));
        expect(response.status).toBeLessThan(500);
        const payload = await within(10_000, response.text());
        if (response.headers.get('content-type')?.startsWith('text/event-stream')) return void outcomes.set('stream', (outcomes.get('stream') ?? 0) + 1);
        const parsed = JSON.parse(payload) as { error?: { code: number } };
        // A typed error for what the caller sent; an internal error (-32603) would be our fault.
        if (parsed.error) expect(KNOWN_CODES, `${text.slice(0, 300)} -> ${payload.slice(0, 300)}`).toContain(parsed.error.code);
        outcomes.set(parsed.error?.code ?? 'result', (outcomes.get(parsed.error?.code ?? 'result') ?? 0) + 1);
      }),
      fuzzParameters(400),
    );
    // The generated inputs reach past the envelope: results and params errors, not only parse errors.
    expect((outcomes.get('result') ?? 0) + (outcomes.get('stream') ?? 0), JSON.stringify([...outcomes])).toBeGreaterThan(20);
    expect(outcomes.get(-32602) ?? 0).toBeGreaterThan(10);
  }, 240_000);
});

describe('deeply nested input on /api/a2a (issue 25 item 6)', () => {
  /** `{"a":{"a":…}}`, `depth` objects deep, built as text: JSON.stringify of it would itself run out of stack. */
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
  const send = (method: string, message: string, headers: Record<string, string> = {}) =>
    services.handlers.a2a(
      new Request('http://127.0.0.1:3999/api/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":{"message":${message}}}`,
      }),
    );
  const v03 = (part: string, metadata = '{"skillId":"@acme/summarizer"}') => `{"kind":"message","messageId":"${crypto.randomUUID()}","role":"user","parts":[${part}],"metadata":${metadata}}`;
  const v1 = (part: string) => `{"messageId":"${crypto.randomUUID()}","role":"ROLE_USER","parts":[${part}],"metadata":{"skillId":"@acme/summarizer"}}`;

  it.each([
    ['a v0.3 data part', 'message/send', v03(`{"kind":"data","data":${nested(10_000)}}`)],
    ['v0.3 message metadata', 'message/send', v03('{"kind":"text","text":"hi"}', `{"skillId":"@acme/summarizer","x":${nested(10_000)}}`)],
    ['a v0.3 streamed data part', 'message/stream', v03(`{"kind":"data","data":${nested(10_000)}}`)],
    ['a v1.0 data part', 'SendMessage', v1(`{"data":${nested(10_000)}}`)],
  ])('refuses %s nested 10 000 deep with -32602 naming the limit', async (_, method, message) => {
    const response = await send(method, message);
    expect(response.status).toBe(200);
    const text = await response.text();
    // A streaming method answers its error as one event-stream frame: the JSON after `data:`.
    const payload = JSON.parse(text.replace(/^[^{]*/, '')) as { error?: { code: number; message: string } };
    expect(payload.error).toMatchObject({ code: -32602, message: expect.stringContaining('64 levels') });
  });

  it('accepts a data part nested 40 deep (params 45 deep, within the limit)', async () => {
    const response = await send('message/send', v03(`{"kind":"data","data":${nested(40)}}`));
    expect(((await response.json()) as { result?: { kind: string } }).result).toMatchObject({ kind: 'task' });
  });
});
