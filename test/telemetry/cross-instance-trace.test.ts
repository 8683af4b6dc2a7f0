import { randomBytes } from 'node:crypto';
import type { Services } from '@service/core';
import { inSpan } from '@service/core/telemetry';
import { installFlowAgent, testServices, useTestDatabase } from '@service/core/testing';
import { startTracing, type Tracing } from '@service/core/trace-export';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { jaegerSkipReason } from '../helpers/jaeger-binary.ts';
import { startJaeger, type Jaeger, type ReceivedSpan } from '../helpers/jaeger.ts';
import { startOpenAiWire, type WireServer } from '../helpers/llm-wire.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * One trace for a run that crosses two instances, as an operator's collector sees it: instance A
 * (this process, its own services on its own database) calls B (a real service process) for an
 * agent that pauses for a human; both export to a real Jaeger over OTLP/HTTP through the standard
 * OTEL_* variables. The pause, the answer and B's resumed execution are in the same trace.
 */
const skip = await jaegerSkipReason();
const dbA = useTestDatabase();
const dbB = useTestDatabase();
const adminA = { type: 'ui', id: 'admin-a', email: 'admin@acme.test', role: 'admin' } as const;
const INPUT = 'A draft to review. It is long and confidential.';
let jaeger: Jaeger;
/** B's model: a local server speaking OpenAI's streaming wire format, reporting 5 input and 3 output tokens a reply. */
let llm: WireServer;
let b: RunningService;
let localA: Services;
let tracing: Tracing | null;
let clientSecret: string;

beforeAll(async () => {
  if (skip) return;
  [jaeger, llm] = await Promise.all([startJaeger(), startOpenAiWire()]);
  await installExampleAgents(dbB.db, '@globex');
  // An agent whose LLM step calls a tool: its call is a span of its own under the step.
  await installFlowAgent(dbB.db, '@globex', '@globex/researcher', [{ kind: 'llm', id: 'research', prompt: '{{input}}' }], [], { tools: [{ tool: 'service_extensions_search', approval: 'never' }] });
  b = await startService({
    mongodbUri: dbB.uri,
    env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpUrl, OTEL_SERVICE_NAME: 'instance-b', OTEL_BSP_SCHEDULE_DELAY: '200', SERVICE_LLM_PROVIDER: 'openai-compatible', SERVICE_LLM_BASE_URL: llm.baseUrl, SERVICE_LLM_API_KEY: 'sk-test-not-a-secret-elsewhere', SERVICE_LLM_MODEL: 'test-model' },
  });
  const adminB = { type: 'ui', id: 'admin-b', email: 'admin@globex.test', role: 'admin' } as const;
  const registered = await testServices(dbB.db).oauth.clients.register(adminB, { name: 'acme', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  clientSecret = registered.clientSecret;
  localA = testServices(dbA.db, { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: randomBytes(32).toString('base64') });
  await localA.peers.register(adminA, { id: 'globex', name: 'Globex', baseUrl: b.url, clientId: registered.client.clientId, clientSecret });
  tracing = startTracing({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
    serviceName: 'instance-a',
    version: 'test',
    role: 'service',
    send: (url, call) => localA.outbound.fetch(url, call),
  });
}, 600_000);

afterAll(async () => {
  await tracing?.shutdown();
  await b?.stop();
  await jaeger?.stop();
  await llm?.close();
});

/** The trace's spans once both services' spans have arrived (B exports in batches). */
async function spansOf(traceId: string, until: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
    const traces = [...(await jaeger.traces('instance-a')), ...(await jaeger.traces('instance-b'))];
    spans = traces.filter((trace) => trace.traceId === traceId).flatMap((trace) => trace.spans);
    spans = [...new Map(spans.map((span) => [span.spanId, span])).values()];
    if (until(spans)) return spans;
  }
  throw new Error(`the trace never had the spans expected; it had:\n${spans.map((span) => `${span.serviceName} ${span.name}`).join('\n')}\n${b.output().slice(-2000)}`);
}

describe.skipIf(skip)(`one trace across two instances${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('shows A\'s remote run, B\'s server span, its agent run, the pause, the answer and B\'s resumed run in one trace, with no secret or message text', async () => {
    const { traceId, runId } = await inSpan('operator starts a remote run', {}, async (span) => {
      const paused = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/editorial-review', text: INPUT });
      expect(paused.state).toBe('input-required');
      const done = await localA.remote.resume(paused.id, { screenId: 'approve-summary', values: { approved: true, notes: 'Ship it.' } });
      expect(done.state).toBe('completed');
      return { traceId: span.spanContext().traceId, runId: paused.id };
    });
    await tracing!.flush();
    const runsOfB = (spans: ReceivedSpan[]) => spans.filter((span) => span.serviceName === 'instance-b' && span.name === 'invoke_agent @globex/editorial-review');
    const spans = await spansOf(traceId, (all) => runsOfB(all).length >= 2 && all.some((span) => span.serviceName === 'instance-b' && span.name.startsWith('chat ')));

    // A's outbound calls and B's server spans are parent and child: one trace across the instances.
    const aCalls = spans.filter((span) => span.serviceName === 'instance-a' && span.name === 'POST');
    const bServer = spans.filter((span) => span.serviceName === 'instance-b' && span.name.startsWith('POST /api/a2a'));
    expect(aCalls.length).toBeGreaterThanOrEqual(2);
    expect(bServer.length).toBeGreaterThanOrEqual(2);
    for (const server of bServer) expect(aCalls.map((call) => call.spanId)).toContain(server.parentSpanId);
    // B ran the agent twice in this trace: up to the pause, then after the answer, each under the request that started it.
    expect(runsOfB(spans)).toHaveLength(2);
    for (const run of runsOfB(spans)) expect(spans.map((span) => span.spanId)).toContain(run.parentSpanId);
    // B's LLM turns, named by the GenAI conventions, with the tokens the provider reported.
    const chats = spans.filter((span) => span.serviceName === 'instance-b' && span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.length).toBeGreaterThanOrEqual(2);
    for (const chat of chats) expect(chat.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'test-model', 'gen_ai.usage.input_tokens': 5, 'gen_ai.usage.output_tokens': 3 });
    expect(spans.some((span) => span.serviceName === 'instance-b' && span.name.startsWith('step '))).toBe(true);

    // By default no attribute carries message text, the client secret or a token.
    const attributes = JSON.stringify(spans.map((span) => span.attributes));
    for (const secret of [INPUT, 'Ship it.', clientSecret, 'Bearer ', 'sk-test-not-a-secret-elsewhere']) expect(attributes).not.toContain(secret);
    expect(runId).toBeTruthy();
  }, 120_000);

  it("shows the tool call of B's agent as an execute_tool span under its step, the model's tool call read through the OpenAI wire format", async () => {
    llm.next({ kind: 'tool', name: 'service_extensions_search', argumentChunks: ['{"query":', '"editorial"}'] });
    llm.next({ kind: 'text', chunks: ['Found the editorial review.'] });
    const traceId = await inSpan('operator starts a remote run with a tool', {}, async (span) => {
      const done = await localA.remote.call(adminA, { peerId: 'globex', skillId: '@globex/researcher', text: 'Which agent reviews drafts?' });
      expect(done.state).toBe('completed');
      expect(done.artifacts[0]!.parts[0]).toEqual({ type: 'text', text: 'Found the editorial review.' });
      return span.spanContext().traceId;
    });
    await tracing!.flush();
    const tool = (spans: ReceivedSpan[]) => spans.find((span) => span.serviceName === 'instance-b' && span.name === 'execute_tool service_extensions_search');
    const spans = await spansOf(traceId, (all) => !!tool(all));
    const step = spans.find((span) => span.serviceName === 'instance-b' && span.name === 'step research')!;
    expect(tool(spans)!.parentSpanId).toBe(step.spanId);
    expect(tool(spans)!.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'service_extensions_search', 'gen_ai.tool.type': 'function', 'gen_ai.tool.call.id': 'call_1' });
    // The model was told the tool's result in its second turn (an OpenAI `tool` message after its call).
    const second = llm.requests.at(-1) as { messages: { role: string; tool_call_id?: string; content?: unknown }[] };
    expect(second.messages.find((message) => message.role === 'tool')).toMatchObject({ tool_call_id: 'call_1' });
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('editorial');
  }, 120_000);
});
