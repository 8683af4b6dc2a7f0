import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmProvider, LlmResult, LlmTurn } from '../llm/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { fuzzParameters } from '../testing/index.ts';
import { runToolLoop } from '../tool-loop/index.ts';
import { LeaseLostError } from './event-log.ts';
import type { RunEvent, StepLlmCall } from './model.ts';
import { foldRun, type RunSummary } from './run-view.ts';
import { createToolStepHost, type ResolvedTool } from './tool-step.ts';

/**
 * Model-based: one LLM step with tools, run again and again as workers crash at every point of a
 * call (before its round is stored; its call stored but not sent; sent and written at the site but
 * its answer lost; its result stored), some of them not dead but stalled, waking up after the next
 * worker took the run over and writing on (a second writer). Each try is the real host and loop,
 * built from the log as a takeover builds it; the log fences writes by generation as the event log
 * does; the site (a CMS with the plugin) makes a keyed write once. Whatever the crashes: every call
 * in the log has one result, each call reached the site with one key, the site wrote once per call,
 * and the step ends with the model's answer.
 */

const PLAN: { toolName: string; input: { page: string } }[][] = [
  [
    { toolName: 'write_page', input: { page: 'a' } },
    { toolName: 'write_page', input: { page: 'b' } },
  ],
  [{ toolName: 'write_page', input: { page: 'c' } }],
];

const POINTS = ['roundAsked', 'beforeSite', 'afterSite', 'afterResult'] as const;
type Point = (typeof POINTS)[number];
/** Where a try stops: at a point of a given call (`call` counts the tries' tool calls in order), dead or stalled. */
interface Crash {
  point: Point;
  call: number;
  stalls: boolean;
}

/** The run's log as the event log keeps it: appends fenced by the generation in force. */
class Log {
  events: RunEvent[] = [];
  generation = 0;
  store(generation: number) {
    return async (events: RunEvent[], _calls: StepLlmCall[]) => {
      if (generation !== this.generation) throw new LeaseLostError('run', this.generation);
      this.events.push(...events);
    };
  }
}

/** The site: a keyed write happens once, a repeat gets the first answer. */
class Site {
  written = new Map<string, { page: string; write: number }>();
  keysByPage = new Map<string, Set<string>>();
  write(key: string, page: string) {
    (this.keysByPage.get(page) ?? this.keysByPage.set(page, new Set()).get(page)!).add(key);
    let done = this.written.get(key);
    if (!done) this.written.set(key, (done = { page, write: this.written.size + 1 }));
    return done;
  }
}

const head: RunSummary = { id: 'run', contextId: 'c', agent: '@acme/writer', state: 'working', status: { state: 'working', timestamp: new Date(0).toISOString() }, lastSeq: 0, actorType: 'ui', actorId: 'a', input: { id: 'm', role: 'user', parts: [] }, remote: null, createdAt: new Date(0).toISOString(), updatedAt: new Date(0).toISOString() };

/**
 * One try of the step, as a worker that took the run over at `generation` makes it. At its crash
 * point it calls `stall` and waits for what that returns: never, for a dead worker (kill -9: no
 * code of it runs again); for a stalled one, until the next worker has taken over, when it goes
 * on as a worker woken from SIGSTOP does.
 */
async function attempt(log: Log, site: Site, generation: number, crash: Crash | null, stall: (wakes: boolean) => Promise<void>): Promise<unknown> {
  const view = foldRun(head, log.events.map((event, at) => ({ seq: at + 1, event, state: 'working' as const, generation })));
  let armed = crash;
  const seen: Record<Point, number> = { roundAsked: 0, beforeSite: 0, afterSite: 0, afterResult: 0 };
  const at = async (point: Point) => {
    const nth = seen[point]++;
    if (!armed || armed.point !== point || armed.call !== nth) return;
    const { stalls } = armed;
    armed = null;
    await stall(stalls);
  };
  const tool: ResolvedTool = {
    id: 'write_page',
    name: 'write_page',
    kind: 'primitive',
    description: 'Writes a page',
    parameters: { type: 'object', properties: { page: { type: 'string' } } },
    hints: { readOnlyHint: false, destructiveHint: false },
    approval: 'never',
    async call(args, context) {
      await at('beforeSite');
      const written = site.write(context.key, (args as { page: string }).page);
      await at('afterSite');
      return written;
    },
  };
  const llm: LlmProvider = {
    name: 'model',
    model: 'model',
    stream: () => {
      throw new Error('not streamed');
    },
    async complete(turn: LlmTurn): Promise<LlmResult> {
      await at('roundAsked');
      const round = turn.messages.filter((message) => message.role === 'assistant').length;
      const planned = PLAN[round] ?? [];
      return { text: '', toolCalls: planned.map((call, index) => ({ toolCallId: `model-${round}-${index}`, ...call })), provider: 'model', model: 'model' };
    },
  };
  const store = log.store(generation);
  const host = createToolStepHost({
    index: 0,
    stepId: 'write',
    stepKey: 'step-key',
    pending: view.progress.pending,
    tools: [tool],
    llm,
    signal: new AbortController().signal,
    recorder: { calls: [] },
    callAgent: async () => '',
    store: async (events, priced) => {
      await store(events, priced);
      if (events.some((event) => event.type === 'status' && event.tool?.phase === 'result')) await at('afterResult');
    },
    price: async (priced) => priced,
    logger: createMemoryLogger(),
  });
  const result = await runToolLoop({ instructions: 'x', prompt: 'write the pages', tools: [{ name: 'write_page', description: 'x', parameters: {} }], maxToolRounds: 4 }, host);
  return result.kind === 'answer' ? result.output : null;
}

/** A woken try refused by the fence: nothing more of it. */
const stopped = (error: unknown) => {
  if (error instanceof LeaseLostError) return null;
  throw error;
};

describe('a tool step continued after crashes and takeovers (model-based)', () => {
  it('keeps one result per call in the log, one key per call at the site, and one write per call', async () => {
    const crashArbitrary: fc.Arbitrary<Crash> = fc.record({ point: fc.constantFrom(...POINTS), call: fc.integer({ min: 0, max: 2 }), stalls: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(crashArbitrary, { maxLength: 5 }), async (crashes) => {
        const log = new Log();
        const site = new Site();
        /** Stalled tries, each woken once the try after it has run. */
        const stalledTries: { wake: () => void; running: Promise<unknown> }[] = [];
        let answer: unknown = undefined;
        for (let generation = 0; ; generation++) {
          // A takeover: this worker's generation starts, so every earlier worker's next write is refused.
          log.generation = generation;
          let onStall!: (wakes: boolean) => void;
          const stalledNow = new Promise<boolean>((resolve) => (onStall = resolve));
          let wake!: () => void;
          const woken = new Promise<void>((resolve) => (wake = resolve));
          const never = new Promise<void>(() => undefined);
          const running = attempt(log, site, generation, crashes[generation] ?? null, (wakes) => (onStall(wakes), wakes ? woken : never));
          const outcome = await Promise.race([running.then((value) => ({ done: true as const, value })), stalledNow.then((wakes) => ({ done: false as const, wakes }))]);
          // The previous stalled worker wakes up now, after this one took over: a second writer.
          stalledTries.shift()?.wake();
          if (outcome.done) {
            answer = outcome.value;
            break;
          }
          if (outcome.wakes) stalledTries.push({ wake, running: running.catch(stopped) });
        }
        for (const stalled of stalledTries) stalled.wake();
        await Promise.all(stalledTries.map((stalled) => stalled.running));
        const results = log.events.flatMap((event) => (event.type === 'status' && event.tool?.phase === 'result' ? [event.tool.callId] : []));
        expect(new Set(results).size).toBe(results.length);
        expect([...results].sort()).toEqual(['0.0.0', '0.0.1', '0.1.0']);
        // Each page went to the site under one key (every try of a call carries the same), and was written once.
        expect([...site.keysByPage.keys()].sort()).toEqual(['a', 'b', 'c']);
        expect([...site.keysByPage.values()].map((keys) => keys.size)).toEqual([1, 1, 1]);
        expect(site.written.size).toBe(3);
        expect(answer).toBe('');
      }),
      fuzzParameters(300),
    );
  });
});
