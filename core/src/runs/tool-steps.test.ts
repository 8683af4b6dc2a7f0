import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { CLASSIFIER_STEPS, installExampleAgents, installFlowAgent, recordSpans, testServices, useTestDatabase } from '../testing/index.ts';
import { textMessage } from '../use-cases/index.ts';
import type { RunEvent, ToolActivity } from './model.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-tools', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  // A researcher: one LLM step with the summarizer (asked about before each call) and the marketplace search (never asked about).
  await installFlowAgent(t.db, '@acme', '@acme/researcher', [{ kind: 'llm', id: 'work', prompt: '{{input}}' }], [], {
    skills: ['@acme/summarizer'],
    tools: [{ tool: '@acme/summarizer', approval: 'always' }, { tool: 'service_extensions_search', approval: 'never' }],
    maxToolRounds: 3,
  });
  // A classifier: a structured answer that a `when` reads.
  await installFlowAgent(t.db, '@acme', '@acme/classifier', CLASSIFIER_STEPS);
  services = testServices(t.db);
});

/** Starts `agent` with `text` and waits for its execution; the run and its events. */
async function started(agent: string, text: string) {
  const { run, execution } = await services.useCases.runs.start(admin, { agent, message: textMessage(text) });
  await execution;
  return read(run.id);
}

async function read(runId: string) {
  const events = (await services.eventLog.readAfter(runId, 0)).map((stored) => stored.event);
  return { run: (await services.runs.get(runId))!, events };
}

async function answered(runId: string, values: Record<string, unknown>) {
  const run = (await services.runs.get(runId))!;
  const { answerSeq } = await services.useCases.runs.answer(admin, runId, { screenId: run.interrupt!.screenId, values });
  for await (const stored of services.eventLog.follow(runId, answerSeq)) void stored;
  return read(runId);
}

const activities = (events: RunEvent[]) => events.flatMap((event): ToolActivity[] => (event.type === 'status' && event.tool ? [event.tool] : []));
const answerOf = (events: RunEvent[]) => events.flatMap((event) => (event.type === 'artifact' ? event.artifact.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [])).join('');

describe('an LLM step with tools', () => {
  it('calls a read-only primitive without asking, tells the model its result, and answers', async () => {
    const { run, events } = await started('@acme/researcher', 'use service_extensions_search with {"query":"editorial"}');
    expect(run.state).toBe('completed');
    const [call, result] = activities(events);
    expect(call).toMatchObject({ phase: 'call', callId: '0.0.0', tool: 'service_extensions_search', kind: 'primitive', arguments: { query: 'editorial' }, key: expect.stringMatching(/^[a-f0-9]{32}$/) });
    expect(result).toMatchObject({ phase: 'result', callId: '0.0.0', outcome: 'ok', output: [expect.objectContaining({ packageName: '@acme/editorial-review' })] });
    expect(answerOf(events)).toContain('service_extensions_search answered');
    // The round that asked for the call is stored before it; the step's record comes with the answer.
    expect(events.map((event) => event.type === 'status' && event.tool ? `tool ${event.tool.phase}` : event.type)).toEqual(['created', 'status', 'round', 'tool call', 'tool result', 'artifact', 'status', 'step']);
  });

  it('pauses before a call the flow wants approved, showing the tool and its arguments, and makes it once approved', async () => {
    const { run, events } = await started('@acme/researcher', 'use acme__summarizer with {"input":"Tools work. They do."}');
    expect(run.state).toBe('input-required');
    expect(run.interrupt).toMatchObject({ stepId: 'work', screenId: 'approve-0.0.0', title: 'Allow @acme/summarizer to run?', tool: { callId: '0.0.0', tool: '@acme/summarizer', kind: 'agent', arguments: { input: 'Tools work. They do.' } } });
    expect(run.interrupt!.schema).toMatchObject({ required: ['approved'], properties: { arguments: { properties: { input: { type: 'string' } } } } });
    expect(activities(events)).toEqual([]);

    const done = await answered(run.id, { approved: true });
    expect(done.run.state).toBe('completed');
    const [call, result] = activities(done.events);
    expect(call).toMatchObject({ phase: 'call', approval: { decision: 'approved', by: { type: 'ui', id: 'admin-tools' } } });
    expect(result).toMatchObject({ phase: 'result', outcome: 'ok', output: '[scripted] Summarize: Tools work. They do.' });
    // The summarizer's LLM call counts in the run's usage, as the two rounds' do.
    expect(result!.phase === 'result' && result!.calls).toHaveLength(1);
    expect(done.run.usage?.calls).toBe(3);
    // The model was asked once before the pause: the round is replayed from the log, not asked again.
    expect(done.events.filter((event) => event.type === 'round')).toHaveLength(1);
  });

  it('tells the model a denied call was not allowed, with the reason, and makes no call', async () => {
    const { run } = await started('@acme/researcher', 'use acme__summarizer with {"input":"Not this."}');
    const done = await answered(run.id, { approved: false, reason: 'Not today.' });
    expect(done.run.state).toBe('completed');
    expect(activities(done.events)).toEqual([expect.objectContaining({ phase: 'result', outcome: 'denied', approval: expect.objectContaining({ decision: 'denied', reason: 'Not today.' }) })]);
    expect(answerOf(done.events)).toBe('[scripted] acme__summarizer was not allowed: Not today.');
  });

  it('makes the call with the arguments the human changed', async () => {
    const { run } = await started('@acme/researcher', 'use acme__summarizer with {"input":"Before the edit."}');
    const done = await answered(run.id, { approved: true, arguments: { input: 'After the edit. Shorter.' } });
    const [call, result] = activities(done.events);
    expect(call).toMatchObject({ arguments: { input: 'After the edit. Shorter.' }, approval: { decision: 'edited' } });
    expect(result).toMatchObject({ output: '[scripted] Summarize: After the edit. Shorter.' });
  });

  it('refuses an approval that does not match its screen, and keeps waiting', async () => {
    const { run } = await started('@acme/researcher', 'use acme__summarizer with {"input":"Wait."}');
    await expect(services.useCases.runs.answer(admin, run.id, { screenId: run.interrupt!.screenId, values: { approved: 'yes' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(services.useCases.runs.answer(admin, run.id, { screenId: run.interrupt!.screenId, values: { approved: true, arguments: { input: 3 } } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await services.runs.get(run.id))!.state).toBe('input-required');
  });

  it('tells the model about a failing call, and goes on', async () => {
    const { run, events } = await started('@acme/researcher', 'use service_extensions_search with {"query":3}');
    expect(run.state).toBe('completed');
    expect(activities(events).at(-1)).toMatchObject({ phase: 'result', outcome: 'error', error: expect.stringContaining('Invalid input for service_extensions_search') });
    expect(answerOf(events)).toContain('service_extensions_search failed: Invalid input');
  });

  it('answers with a value of its output schema, which a `when` reads', async () => {
    const urgent = await started('@acme/classifier', 'answer with {"urgent":true,"topic":"outage"}');
    expect(answerOf(urgent.events)).toBe('Urgent: outage');
    expect(urgent.run.progress.outputs.judge).toEqual({ urgent: true, topic: 'outage' });
    const later = await started('@acme/classifier', 'answer with {"urgent":false,"topic":"typo"}');
    expect(answerOf(later.events)).toBe('Later: typo');
  });

  it('traces each call as an execute_tool span under its step (GenAI attributes), never its arguments or result', async () => {
    const spans = recordSpans();
    try {
      await started('@acme/researcher', 'use service_extensions_search with {"query":"editorial"}');
      const finished = await spans.finished();
      const step = finished.find((span) => span.name === 'step work')!;
      const tool = finished.find((span) => span.name === 'execute_tool service_extensions_search')!;
      expect(tool.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
      expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'service_extensions_search', 'gen_ai.tool.call.id': 'scripted-1', 'gen_ai.tool.type': 'function', 'service.tool.call': '0.0.0' });
      expect(JSON.stringify(tool.attributes)).not.toContain('editorial');
      // The primitive's own span is not doubled under it.
      expect(finished.filter((span) => span.name.startsWith('execute_tool'))).toHaveLength(1);
    } finally {
      await spans.stop();
    }
  });
});
