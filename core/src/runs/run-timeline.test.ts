import { describe, expect, it } from 'vitest';
import type { StoredEvent } from './event-log.ts';
import type { RunEvent } from './model.ts';
import { actorLabel, boundedText, buildRunTimeline, namedIn, traceIdOf, traceUrl } from './run-timeline.ts';
import type { RunSummary } from './run-view.ts';

const input = { id: 'm1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'Summarise the draft' }] };
const head = (over: Partial<RunSummary> = {}): RunSummary => ({
  id: 'run-1',
  contextId: 'ctx',
  agent: '@acme/writer',
  state: 'completed',
  status: { state: 'completed', timestamp: '2026-01-01T10:00:05.000Z' },
  lastSeq: 6,
  actorType: 'ui',
  actorId: '64b7f0000000000000000001',
  input,
  remote: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:05.000Z',
  ...over,
});
const stored = (events: RunEvent[]): StoredEvent[] => events.map((event, i) => ({ seq: i + 1, event, state: 'working', generation: 0 }));

const log = stored([
  { type: 'created', runId: 'run-1', contextId: 'ctx', agent: '@acme/writer', input, status: { state: 'submitted', timestamp: '2026-01-01T10:00:00.000Z' } },
  {
    type: 'step',
    index: 0,
    stepId: 'summarise',
    output: 'A summary',
    kind: 'llm',
    startedAt: '2026-01-01T10:00:00.100Z',
    durationMs: 1500,
    attempts: 2,
    calls: [
      { provider: 'openai-compatible', model: 'gpt-x', inputTokens: 100, outputTokens: 20, durationMs: 700, costUsd: 0.01 },
      { provider: 'openai-compatible', model: 'gpt-x', inputTokens: 50, outputTokens: 5, durationMs: 600, costUsd: 0.002 },
    ],
  },
  {
    type: 'status',
    final: true,
    status: { state: 'input-required', timestamp: '2026-01-01T10:00:02.000Z' },
    interrupt: { stepId: 'approve', screenId: 'approve-summary', title: 'Approve the summary', schema: {} },
  },
  {
    type: 'status',
    final: false,
    status: { state: 'working', timestamp: '2026-01-01T10:00:03.000Z' },
    answer: { screenId: 'approve-summary', values: { approved: true }, stepId: 'approve', stepIndex: 1, by: { type: 'ui', id: '64b7f0000000000000000002' } },
  },
  { type: 'step', index: 2, stepId: 'legacy', output: { note: 'stored before timings' } },
  { type: 'status', final: true, status: { state: 'completed', timestamp: '2026-01-01T10:00:05.000Z', message: { id: 'm2', role: 'agent', parts: [{ type: 'text', text: 'Done' }] } } },
]);

describe('run timeline', () => {
  it('gives the run its start, end, duration and who started it by name', () => {
    const timeline = buildRunTimeline(head(), log, { names: new Map([['ui:64b7f0000000000000000001', 'admin@acme.test']]) });
    expect(timeline).toMatchObject({ startedAt: '2026-01-01T10:00:00.000Z', endedAt: '2026-01-01T10:00:05.000Z', durationMs: 5000, startedBy: { kind: 'user', label: 'admin@acme.test' } });
    expect(timeline.input.preview).toBe('Summarise the draft');
  });

  it('has no end or duration while the run waits', () => {
    const timeline = buildRunTimeline(head({ state: 'input-required', status: { state: 'input-required', timestamp: '2026-01-01T10:00:02.000Z' } }), log.slice(0, 3));
    expect(timeline.endedAt).toBeNull();
    expect(timeline.durationMs).toBeNull();
    expect(timeline.entries.at(-1)).toMatchObject({ type: 'pause', title: 'Approve the summary', answer: null });
  });

  it('shows each step with its timing, attempts and usage, and an older step without them', () => {
    const steps = buildRunTimeline(head(), log).entries.filter((e) => e.type === 'step');
    expect(steps[0]).toMatchObject({
      stepId: 'summarise',
      kind: 'llm',
      startedAt: '2026-01-01T10:00:00.100Z',
      endedAt: '2026-01-01T10:00:01.600Z',
      durationMs: 1500,
      attempts: 2,
      status: 'done',
      usage: { calls: 2, models: ['gpt-x'], inputTokens: 150, outputTokens: 25 },
    });
    expect((steps[0] as { usage: { costUsd: number } }).usage.costUsd).toBeCloseTo(0.012);
    expect(steps[1]).toMatchObject({ stepId: 'legacy', kind: null, startedAt: null, endedAt: null, durationMs: null, attempts: null, usage: null });
    expect((steps[1] as { output: { full: string } }).output.full).toContain('stored before timings');
  });

  it('shows the last step before the answer and the ending stored with it, as the executor stores it after them', () => {
    const ending = stored([
      log[0]!.event,
      { type: 'artifact', artifact: { id: 'a1', name: 'answer', parts: [{ type: 'text', text: 'A summary' }] }, lastChunk: true },
      { type: 'status', final: true, status: { state: 'completed', timestamp: '2026-01-01T10:00:05.000Z', message: { id: 'm2', role: 'agent', parts: [{ type: 'text', text: 'A summary' }] } } },
      { type: 'step', index: 0, stepId: 'answer', output: 'A summary', kind: 'llm', startedAt: '2026-01-01T10:00:00.100Z', durationMs: 4800 },
    ]);
    expect(buildRunTimeline(head(), ending).entries.map((entry) => entry.type)).toEqual(['created', 'step', 'artifact', 'status']);
    // A step before the last stays after the statuses stored before it.
    const middle = stored([log[0]!.event, { type: 'status', final: false, status: { state: 'working', timestamp: '2026-01-01T10:00:01.000Z' } }, { type: 'step', index: 0, stepId: 'first', output: 'x' }]);
    expect(buildRunTimeline(head({ state: 'working' }), middle).entries.map((entry) => entry.type)).toEqual(['created', 'status', 'step']);
  });

  it('puts the answer, who gave it and its values on the pause', () => {
    const timeline = buildRunTimeline(head(), log, { names: new Map([['ui:64b7f0000000000000000002', 'reviewer@acme.test']]) });
    const pauses = timeline.entries.filter((e) => e.type === 'pause');
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toMatchObject({ title: 'Approve the summary', at: '2026-01-01T10:00:02.000Z', answer: { at: '2026-01-01T10:00:03.000Z', by: { label: 'reviewer@acme.test' } } });
    expect(pauses[0]!.type === 'pause' && pauses[0]!.answer!.values.preview).toContain('"approved": true');
  });

  it('keeps an answer whose pause is on an earlier page, and an answer without a recorded actor', () => {
    const answer = log[3]!;
    const event = answer.event as Extract<RunEvent, { type: 'status' }>;
    const page = [{ ...answer, event: { ...event, answer: { ...event.answer!, by: undefined } } }];
    expect(buildRunTimeline(head(), page).entries).toEqual([expect.objectContaining({ type: 'pause', screenId: 'approve-summary', answer: expect.objectContaining({ by: null }) })]);
  });

  it('takes usage from the run head; else sums the steps only when the page is the whole log', () => {
    const usage = { calls: 9, inputTokens: 900, outputTokens: 90, costUsd: 1.5 };
    expect(buildRunTimeline(head({ usage }), log).usage).toEqual(usage);
    expect(buildRunTimeline(head(), log, { wholeLog: true }).usage).toMatchObject({ calls: 2, inputTokens: 150, outputTokens: 25 });
    expect(buildRunTimeline(head(), log).usage).toBeNull();
    expect(buildRunTimeline(head(), log.slice(0, 1), { wholeLog: true }).usage).toBeNull();
  });

  it('links a remote run and a remote step to the task on the peer when its address is known', () => {
    const peers = new Map([['peer-b', { name: 'Instance B', baseUrl: 'https://b.example/' }]]);
    const bridged = stored([
      { type: 'status', final: true, status: { state: 'input-required', timestamp: '2026-01-01T10:00:02.000Z' }, interrupt: { stepId: 's', screenId: 'x', title: 'T', schema: {}, remoteRunId: 'task-9' }, metadata: { remote: { peerId: 'peer-b', taskId: 'task-9', eventId: 2 } } },
      { type: 'step', index: 0, stepId: 'ask-b', output: 'ok', remote: { peerId: 'peer-b', taskId: 'task/7' } },
      { type: 'step', index: 1, stepId: 'ask-c', output: 'ok', remote: { peerId: 'peer-c', taskId: 'task-8' } },
    ]);
    const timeline = buildRunTimeline(head({ remote: { peerId: 'peer-b', skillId: '@b/agent' } }), bridged, { peers });
    expect(timeline.remote).toEqual({ peerId: 'peer-b', peerName: 'Instance B', taskId: 'task-9', url: 'https://b.example/administration/runs/task-9' });
    const steps = timeline.entries.filter((e) => e.type === 'step');
    expect(steps[0]).toMatchObject({ remote: { url: 'https://b.example/administration/runs/task%2F7' } });
    expect(steps[1]).toMatchObject({ remote: { peerId: 'peer-c', taskId: 'task-8', url: null } });
    expect(namedIn(head({ remote: { peerId: 'peer-b', skillId: '@b/agent' } }), bridged).peerIds.sort()).toEqual(['peer-b', 'peer-c']);
  });

  it('links the trace only with a template and a valid traceparent', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(traceIdOf(traceparent)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceUrl('https://jaeger.example/trace/{traceId}', traceparent)).toBe('https://jaeger.example/trace/4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceUrl(undefined, traceparent)).toBeNull();
    expect(traceUrl('https://jaeger.example/trace/{traceId}', undefined)).toBeNull();
    expect(traceUrl('https://jaeger.example/trace/{traceId}', '00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeNull();
    expect(buildRunTimeline(head({ traceparent }), log, { traceUiUrl: 'https://j.example/t/{traceId}' }).traceUrl).toBe('https://j.example/t/4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('names callers as people know them', () => {
    expect(actorLabel({ type: 'a2a', id: 'oauth:client-1' }, new Map([['a2a:oauth:client-1', 'Partner CRM']]))).toEqual({ kind: 'A2A client', label: 'Partner CRM', raw: 'a2a:oauth:client-1' });
    expect(actorLabel({ type: 'a2a', id: 'oauth:mcp_abc' })).toMatchObject({ kind: 'MCP client', label: 'mcp_abc' });
    expect(actorLabel({ type: 'a2a', id: 'oauth-grant:g1' })).toMatchObject({ kind: 'MCP client', label: 'g1' });
    expect(actorLabel({ type: 'route', id: 'widget:cms_b:blog' })).toMatchObject({ kind: 'widget', label: 'blog (cms_b)' });
    expect(actorLabel({ type: 'worker', id: 'worker:import-sync' })).toMatchObject({ kind: 'service', label: 'import-sync' });
    expect(actorLabel({ type: 'ui', id: 'u1' })).toMatchObject({ kind: 'user', label: 'user u1' });
  });

  it('bounds long values: a one-line preview, and the rest up to a limit with what was left out', () => {
    const long = boundedText('x'.repeat(5000), 4000, 10);
    expect(long.preview).toBe(`${'x'.repeat(9)}…`);
    expect(long.full).toHaveLength(4000);
    expect(long.omitted).toBe(1000);
    expect(boundedText({ a: 1 }).full).toBe('{\n  "a": 1\n}');
  });
});
