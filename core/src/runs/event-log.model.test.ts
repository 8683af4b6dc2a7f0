import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../db/index.ts';
import { fuzzParameters, useTestDatabase, within } from '../testing/index.ts';
import { createEventLog, LeaseLostError, RunEndedError, type EventLog, type StoredEvent, type Tail } from './event-log.ts';
import { ACTIVE_STATES, isTerminal, type RunEvent, type RunStatus } from './model.ts';

/**
 * Model-based: three processes (three connections, three event logs) act on one run at once —
 * a worker appending under its lease generation, a takeover starting the next generation, a
 * pause, answers, a cancel, a completion, a crash (a process forgets what it knew) — in random
 * rounds of concurrent commands. Whatever the interleaving, the stored log must be one a run can
 * have: dense, at most one terminal event and nothing after it, generations never going back
 * (so nothing of a worker lands after its successor's first write), one accepted answer per
 * pause, and every follower ends once the log has ended.
 */
const t = useTestDatabase();
const processes: { db: Database; log: EventLog }[] = [];

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    const db = i === 0 ? t.db : await connectDatabase(t.uri);
    processes.push({ db, log: createEventLog(db.models) });
  }
});
afterAll(async () => {
  for (const writer of processes.slice(1)) await writer.db.close();
});

const status = (state: RunStatus['state'], final = false, extra: Partial<Extract<RunEvent, { type: 'status' }>> = {}): RunEvent => ({ type: 'status', status: { state, timestamp: new Date().toISOString() }, final, ...extra });

type Command = { kind: 'work' | 'step' | 'pause' | 'answer' | 'takeover' | 'complete' | 'cancel' | 'crash'; process: number };
const commandArbitrary: fc.Arbitrary<Command> = fc.record({
  kind: fc.constantFrom('work', 'step', 'pause', 'answer', 'takeover', 'complete', 'cancel', 'crash'),
  process: fc.integer({ min: 0, max: 2 }),
});

/** What each process believes: the generation it holds (null: none). */
interface Belief {
  generation: number | null;
}

/** Runs one command as the code does it; resolves to what it stored (or nothing when refused). */
async function run(runId: string, command: Command, beliefs: Belief[], accepted: Map<number, number>): Promise<void> {
  const writer = processes[command.process]!;
  const belief = beliefs[command.process]!;
  const fence = belief.generation ?? undefined;
  const refused = (error: unknown) => {
    if (error instanceof LeaseLostError) belief.generation = null;
    if (error instanceof LeaseLostError || error instanceof RunEndedError || (error as { code?: string }).code === 'CONFLICT') return;
    throw error;
  };
  switch (command.kind) {
    case 'work':
    case 'step':
    case 'pause':
    case 'complete': {
      if (fence === undefined) return;
      const events: RunEvent[] = command.kind === 'work' ? [status('working')] : command.kind === 'step' ? [{ type: 'step', index: 0, stepId: 's', output: command.process }] : command.kind === 'pause' ? [status('input-required', true, { interrupt: { stepId: 'ask', screenId: 'ask', title: 'Ask', schema: {} } })] : [{ type: 'artifact', artifact: { id: 'a', parts: [{ type: 'text', text: String(command.process) }] } }, status('completed', true)];
      await writer.log.appendAll(runId, events, { fence }).then(() => {
        if (command.kind === 'pause') belief.generation = null;
      }, refused);
      return;
    }
    case 'takeover': {
      const tail = await writer.log.readTail(runId);
      if (!ACTIVE_STATES.includes(tail.state)) return;
      const generation = tail.generation + 1;
      await writer.log.append(runId, status('working'), { generation, expect: (at) => {
        if (!ACTIVE_STATES.includes(at.state)) throw Object.assign(new Error('settled'), { code: 'CONFLICT' });
      } }).then(() => (belief.generation = generation), refused);
      return;
    }
    case 'answer': {
      const tail = await writer.log.readTail(runId);
      if (tail.state !== 'input-required') return;
      const generation = tail.generation + 1;
      await writer.log.append(runId, status('working', false, { answer: { screenId: 'ask', values: { by: command.process }, stepId: 'ask', stepIndex: 0 } }), {
        generation,
        expect: (at) => {
          if (at.seq !== tail.seq || at.state !== 'input-required') throw Object.assign(new Error('answered'), { code: 'CONFLICT' });
        },
      }).then(() => {
        belief.generation = generation;
        accepted.set(tail.seq, (accepted.get(tail.seq) ?? 0) + 1);
      }, refused);
      return;
    }
    case 'cancel':
      await writer.log.append(runId, status('canceled', true)).catch(refused);
      return;
    case 'crash':
      // The process restarts: it forgets the tails it knew and holds nothing.
      writer.log = createEventLog(writer.db.models);
      belief.generation = null;
      return;
  }
}

async function storedLog(runId: string): Promise<StoredEvent[]> {
  return processes[0]!.log.readAfter(runId, 0);
}

function checkLog(events: StoredEvent[], accepted: Map<number, number>): void {
  // Dense from 1.
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  // At most one terminal event, and it is the last.
  const ends = events.filter((e) => e.event.type === 'status' && isTerminal(e.event.status.state));
  expect(ends.length).toBeLessThanOrEqual(1);
  if (ends.length) expect(events.at(-1)!.seq).toBe(ends[0]!.seq);
  // Generations never go back: once a successor wrote, no write of an earlier holder follows.
  for (let i = 1; i < events.length; i++) expect(events[i]!.generation).toBeGreaterThanOrEqual(events[i - 1]!.generation);
  // Each pause took at most one answer, right after it.
  for (const [pauseSeq, count] of accepted) {
    expect(count).toBe(1);
    const next = events.find((e) => e.seq === pauseSeq + 1);
    expect(next?.event).toMatchObject({ type: 'status', answer: expect.any(Object) });
  }
  const answers = events.filter((e) => e.event.type === 'status' && e.event.answer);
  for (const answer of answers) expect(events[answer.seq - 2]!.state).toBe('input-required');
  // The state each row carries is the fold of the events up to it.
  let state = 'submitted';
  for (const e of events) {
    if (e.event.type === 'status' || e.event.type === 'created') state = e.event.status.state;
    expect(e.state).toBe(state);
  }
}

describe('the event log under concurrent writers (model-based)', () => {
  it('keeps every run a run can have, whatever three processes do at once', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(commandArbitrary, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 10 }), async (rounds) => {
        const runId = `0190f5e4-0000-7000-8000-${String(round++).padStart(12, '0')}`;
        // The run as created: its first events, generation 0 held by process 0.
        const created: RunEvent = { type: 'created', runId, contextId: 'c', agent: '@acme/a', input: { id: 'm', role: 'user', parts: [] }, status: { state: 'submitted', timestamp: new Date().toISOString() } };
        await processes[0]!.log.appendAll(runId, [created, status('working')], { knownTail: { seq: 0, state: 'submitted', generation: 0 } as Tail });
        const beliefs: Belief[] = [{ generation: 0 }, { generation: null }, { generation: null }];
        const accepted = new Map<number, number>();
        for (const commands of rounds) {
          await Promise.all(commands.map((command) => run(runId, command, beliefs, accepted)));
          checkLog(await storedLog(runId), accepted);
        }
        // Every follower, wherever it starts, ends once the log has ended.
        const events = await storedLog(runId);
        if (!isTerminal(events.at(-1)!.state)) await processes[2]!.log.append(runId, status('canceled', true));
        const last = (await storedLog(runId)).at(-1)!.seq;
        for (const from of [0, Math.floor(last / 2), last - 1, last]) {
          const seen = await within(5_000, (async () => {
            const out: number[] = [];
            for await (const stored of processes[1]!.log.follow(runId, from)) out.push(stored.seq);
            return out;
          })());
          // A stream ends at the first final event after its start (a pause or the end).
          const end = (await storedLog(runId)).find((e) => e.seq > from && e.event.type === 'status' && e.event.final);
          expect(seen.every((seq) => seq > from)).toBe(true);
          expect(seen.at(-1)).toBe(end?.seq);
        }
      }),
      fuzzParameters(25),
    );
  }, 240_000);
});
