import type { RemoteBridge, RemotePeers } from '../a2a/client/index.ts';
import { mayAccessRun, type ActorNames, type AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import { buildRunTimeline, isVisible, namedIn, type EventLog, type PeerAddress, type RunState, type RunStore, type RunTimeline, type RunView, type VisibleRunEvent } from '../runs/index.ts';

/** An event of a run as people see it (no executor bookkeeping), with its place in the log. */
export interface ShownEvent {
  seq: number;
  event: VisibleRunEvent;
}

/** A run as the run view shows it: without the executor's position and the log's tail. */
export type ShownRun = Omit<RunView, 'progress' | 'tail'>;

/** One item of a run's feed: an event, or (last) the state the run settled in. */
export type RunFeedItem = ShownEvent | { settled: RunState | null };

async function visibleRun(runs: Pick<RunStore, 'get'>, actor: AgentAccessActor, runId: string): Promise<RunView> {
  const run = await runs.get(runId);
  // Someone else's run looks exactly like a missing one.
  if (!run || !mayAccessRun(actor, run, 'read')) throw new DomainError('NOT_FOUND', 'Run not found');
  return run;
}

/**
 * The run view: the run and its events after `afterSeq`. A paused run on a peer is read as the
 * peer has it (a cancel there is stored here first).
 */
export function createReadRun(deps: { runs: Pick<RunStore, 'get'>; eventLog: Pick<EventLog, 'readAfter'>; remote: Pick<RemoteBridge, 'refresh'> }) {
  return async function readRun(actor: AgentAccessActor, runId: string, afterSeq = 0): Promise<{ run: ShownRun; remote: boolean; events: ShownEvent[] }> {
    const run = await deps.remote.refresh(await visibleRun(deps.runs, actor, runId));
    const { progress: _progress, tail: _tail, ...shown } = run;
    const events = (await deps.eventLog.readAfter(run.id, afterSeq)).flatMap(({ seq, event }) => (isVisible(event) ? [{ seq, event }] : []));
    return { run: shown, remote: !!run.remote, events };
  };
}

/** Events the run page reads at once; a longer log is read a page at a time. */
export const TIMELINE_PAGE = 200;

export interface RunTimelinePage {
  run: ShownRun;
  remote: boolean;
  /** The page's events people see (the live view follows on from the last). */
  events: ShownEvent[];
  timeline: RunTimeline;
  /** Where this page starts (`afterSeq`), and where the next one does (null: this page reaches the log's end). */
  page: { afterSeq: number; nextAfter: number | null };
}

/**
 * The run page: the run and a timeline of one page of its log (at most TIMELINE_PAGE events after
 * `afterSeq`, the internal step events with their timing and usage included), with the callers
 * and peers it names looked up once for the page.
 */
export function createReadRunTimeline(deps: {
  runs: Pick<RunStore, 'get'>;
  eventLog: Pick<EventLog, 'readAfter'>;
  remote: Pick<RemoteBridge, 'refresh'>;
  actorNames: ActorNames;
  peers: Pick<RemotePeers, 'get'>;
  traceUiUrl: string | undefined;
}) {
  return async function readRunTimeline(actor: AgentAccessActor, runId: string, afterSeq = 0): Promise<RunTimelinePage> {
    const run = await deps.remote.refresh(await visibleRun(deps.runs, actor, runId));
    const { progress: _progress, tail: _tail, ...shown } = run;
    const read = await deps.eventLog.readAfter(run.id, afterSeq, TIMELINE_PAGE + 1);
    const page = read.slice(0, TIMELINE_PAGE);
    const more = read.length > TIMELINE_PAGE;
    const { actors, peerIds } = namedIn(run, page);
    const [names, peers] = await Promise.all([
      deps.actorNames(actors),
      Promise.all(peerIds.map(async (id) => [id, await deps.peers.get(id)] as const)).then(
        (found) => new Map(found.flatMap(([id, peer]): [string, PeerAddress][] => (peer ? [[id, { name: peer.name, baseUrl: peer.baseUrl }]] : []))),
      ),
    ]);
    const timeline = buildRunTimeline(run, page, { names, peers, traceUiUrl: deps.traceUiUrl, wholeLog: afterSeq === 0 && !more });
    const events = page.flatMap(({ seq, event }) => (isVisible(event) ? [{ seq, event }] : []));
    return { run: shown, remote: !!run.remote, events, timeline, page: { afterSeq, nextAfter: more ? page.at(-1)!.seq : null } };
  };
}

/**
 * A run's live feed: checks the run is there for this caller, then `from(afterSeq)` yields each
 * event after `afterSeq` as it is stored, and once the run settles (finished, or waiting for an
 * answer: nothing more comes until someone acts) the state it settled in, and ends. Reads only
 * what is new, so following a long run costs its new events, not its history on every tick.
 */
export function createFollowRun(deps: { runs: Pick<RunStore, 'get'>; eventLog: Pick<EventLog, 'follow'> }) {
  return async function followRun(actor: AgentAccessActor, runId: string): Promise<{ from(afterSeq: number, signal: AbortSignal): AsyncGenerator<RunFeedItem> }> {
    const run = await visibleRun(deps.runs, actor, runId);
    return {
      async *from(afterSeq, signal) {
        for await (const { seq, event } of deps.eventLog.follow(run.id, afterSeq, signal)) {
          // `follow` sends only visible events already; this tells the type so.
          if (isVisible(event)) yield { seq, event };
        }
        if (signal.aborted) return;
        yield { settled: (await deps.runs.get(run.id))?.state ?? null };
      },
    };
  };
}

export type ReadRun = ReturnType<typeof createReadRun>;
export type ReadRunTimeline = ReturnType<typeof createReadRunTimeline>;
export type FollowRun = ReturnType<typeof createFollowRun>;
