import type { StoredEvent } from './event-log.ts';
import { isTerminal, textOf, type RunActor, type RunMessage, type RunState, type RunUsage, type StepLlmCall, type ToolActivity, type ToolKind } from './model.ts';
import type { RunSummary } from './run-view.ts';

/**
 * The run page's timeline: what a run did, built from its head and one page of its event log
 * (the internal step events included). Pure: the caller reads the page and the names it needs.
 */

/** A value shown in a few words, with (up to a bound) the whole of it for a <details>. */
export interface BoundedText {
  preview: string;
  full: string;
  /** Characters left out of `full`. */
  omitted: number;
}

export const PREVIEW_CHARS = 160;
export const FULL_CHARS = 4000;

export function boundedText(value: unknown, fullChars = FULL_CHARS, previewChars = PREVIEW_CHARS): BoundedText {
  const text = typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value, null, 2) ?? String(value));
  const full = text.length > fullChars ? text.slice(0, fullChars) : text;
  const oneLine = full.replace(/\s+/g, ' ').trim();
  return { preview: oneLine.length > previewChars ? `${oneLine.slice(0, previewChars - 1)}…` : oneLine, full, omitted: text.length - full.length };
}

/** Who someone is, in words: `label` a name people recognise, `kind` what sort of caller, `raw` the stored type:id. */
export interface ActorLabel {
  kind: 'user' | 'A2A client' | 'MCP client' | 'widget' | 'service' | 'route';
  label: string;
  raw: string;
}

/**
 * Names an actor as sessions and tokens store it. `names` maps `type:id` to a known name (an
 * admin's email, an OAuth client's name; see auth/actor-names.ts).
 */
export function actorLabel(actor: RunActor, names: ReadonlyMap<string, string> = new Map()): ActorLabel {
  const raw = `${actor.type}:${actor.id}`;
  const name = names.get(raw);
  switch (actor.type) {
    case 'ui':
      return { kind: 'user', label: name ?? `user ${actor.id}`, raw };
    case 'a2a': {
      // MCP clients register themselves (ids `mcp_…`) or act through a person's consent (a grant).
      const mcp = actor.id.startsWith('oauth-grant:') || actor.id.startsWith('oauth:mcp_');
      return { kind: mcp ? 'MCP client' : 'A2A client', label: name ?? actor.id.replace(/^oauth(-grant)?:/, ''), raw };
    }
    case 'route': {
      const widget = /^widget:([^:]+):(.+)$/.exec(actor.id);
      if (widget) return { kind: 'widget', label: `${widget[2]} (${widget[1]})`, raw };
      return { kind: 'route', label: name ?? actor.id, raw };
    }
    case 'worker':
      return { kind: 'service', label: actor.id.replace(/^worker:/, ''), raw };
    default:
      return { kind: 'route', label: name ?? raw, raw };
  }
}

/** A task on a peer: its page there when the peer's address is known, its id in any case. */
export interface RemoteTask {
  peerId: string;
  peerName: string | null;
  taskId: string;
  url: string | null;
}

export interface PeerAddress {
  name: string;
  baseUrl: string;
}

/** A peer is another instance of this service: its run page shows the task. */
export function remoteTask(peerId: string, taskId: string, peers: ReadonlyMap<string, PeerAddress>): RemoteTask {
  const peer = peers.get(peerId);
  return { peerId, peerName: peer?.name ?? null, taskId, url: peer ? `${peer.baseUrl.replace(/\/+$/, '')}/administration/runs/${encodeURIComponent(taskId)}` : null };
}

/** The trace id of a W3C traceparent (`00-<trace id>-<span id>-<flags>`), or null when it is not one. */
export function traceIdOf(traceparent: string | undefined): string | null {
  const match = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent?.trim().toLowerCase() ?? '');
  return match && !/^0+$/.test(match[1]!) ? match[1]! : null;
}

/** The tracing UI's page of the run's trace, when both a template (SERVICE_TRACE_UI_URL) and a trace are there. */
export function traceUrl(template: string | undefined, traceparent: string | undefined): string | null {
  const traceId = traceIdOf(traceparent);
  return template && traceId ? template.replaceAll('{traceId}', traceId) : null;
}

export interface StepUsage {
  calls: number;
  models: string[];
  inputTokens: number;
  outputTokens: number;
  /** Null when no call had a price. */
  costUsd: number | null;
}

export type TimelineEntry =
  | { type: 'created'; seq: number; at: string; input: BoundedText }
  | {
      type: 'step';
      seq: number;
      index: number;
      stepId: string;
      /** Null on steps stored before timings were recorded. */
      kind: 'llm' | 'call' | 'ask' | 'reply' | null;
      startedAt: string | null;
      endedAt: string | null;
      durationMs: number | null;
      attempts: number | null;
      /** A finished step, one whose `when` did not hold, or the one that failed the run. */
      status: 'done' | 'skipped' | 'failed';
      output: BoundedText;
      usage: StepUsage | null;
      remote: RemoteTask | null;
      /** What the peer reported its task used (paid for there, so not in this run's usage). */
      remoteUsage: RunUsage | null;
    }
  | {
      type: 'pause';
      seq: number;
      at: string;
      title: string;
      screenId: string;
      remote: RemoteTask | null;
      answer: { seq: number; at: string; by: ActorLabel | null; values: BoundedText } | null;
    }
  | {
      /** A tool call of an LLM step: what was called with what, what it answered, who allowed it. */
      type: 'tool';
      seq: number;
      at: string;
      index: number;
      callId: string;
      tool: string;
      kind: ToolKind;
      arguments: BoundedText | null;
      /** `running`: its call is stored and no result yet (made now, or when its worker stopped). */
      outcome: 'ok' | 'error' | 'denied' | 'running';
      result: BoundedText | null;
      error: string | null;
      durationMs: number | null;
      approval: { decision: 'approved' | 'edited' | 'denied'; by: ActorLabel | null; reason: string | null } | null;
      usage: StepUsage | null;
      remote: RemoteTask | null;
    }
  | { type: 'status'; seq: number; at: string; state: RunState; text: BoundedText | null }
  | { type: 'artifact'; seq: number; name: string | null; text: BoundedText }
  | { type: 'message'; seq: number; role: RunMessage['role']; text: BoundedText };

export interface RunTimeline {
  startedAt: string;
  /** When the run ended for good; null while it runs or waits. */
  endedAt: string | null;
  durationMs: number | null;
  startedBy: ActorLabel;
  input: BoundedText;
  /** The run head's rollup; else the sum of the steps when this page holds the whole log; else null. */
  usage: RunUsage | null;
  traceUrl: string | null;
  remote: RemoteTask | null;
  entries: TimelineEntry[];
}

export interface TimelineContext {
  names?: ReadonlyMap<string, string>;
  peers?: ReadonlyMap<string, PeerAddress>;
  traceUiUrl?: string | undefined;
  /** Whether `events` starts at the log's first event and reaches its end (a sum of the steps is then the run's). */
  wholeLog?: boolean;
}

export function stepUsage(calls: { model: string; inputTokens: number; outputTokens: number; costUsd?: number }[] | undefined): StepUsage | null {
  if (!calls?.length) return null;
  const priced = calls.filter((call) => typeof call.costUsd === 'number');
  return {
    calls: calls.length,
    models: [...new Set(calls.map((call) => call.model))],
    inputTokens: calls.reduce((sum, call) => sum + call.inputTokens, 0),
    outputTokens: calls.reduce((sum, call) => sum + call.outputTokens, 0),
    costUsd: priced.length ? priced.reduce((sum, call) => sum + call.costUsd!, 0) : null,
  };
}

const messageText = (message: RunMessage | undefined): BoundedText | null => {
  const text = textOf(message);
  return text ? boundedText(text) : null;
};

const plusMs = (iso: string, ms: number): string | null => {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : new Date(at + ms).toISOString();
};

export function buildRunTimeline(head: RunSummary, events: readonly StoredEvent[], context: TimelineContext = {}): RunTimeline {
  const names = context.names ?? new Map<string, string>();
  const peers = context.peers ?? new Map<string, PeerAddress>();
  const entries: TimelineEntry[] = [];
  const openPauses = new Map<string, Extract<TimelineEntry, { type: 'pause' }>>();
  const stepUsages: StepUsage[] = [];
  const toolCalls = new Map<string, Extract<TimelineEntry, { type: 'tool' }>>();
  /** LLM calls of a step stored before its record (its rounds' and its tools'), by step index: its usage shows them all. */
  const earlierCalls = new Map<number, StepLlmCall[]>();
  const counted = (index: number, calls: StepLlmCall[] | undefined) => {
    if (!calls?.length) return;
    earlierCalls.set(index, [...(earlierCalls.get(index) ?? []), ...calls]);
    stepUsages.push(stepUsage(calls)!);
  };
  /** The entry of a tool call, made at its call record (or at its result, when the call was denied or is on an earlier page). */
  const toolEntry = (seq: number, at: string, tool: ToolActivity): Extract<TimelineEntry, { type: 'tool' }> => {
    const known = toolCalls.get(tool.callId);
    if (known) return known;
    const entry: Extract<TimelineEntry, { type: 'tool' }> = { type: 'tool', seq, at, index: tool.index, callId: tool.callId, tool: tool.tool, kind: tool.kind, arguments: tool.phase === 'call' ? boundedText(tool.arguments) : null, outcome: 'running', result: null, error: null, durationMs: null, approval: null, usage: null, remote: null };
    toolCalls.set(tool.callId, entry);
    entries.push(entry);
    return entry;
  };
  const approvalOf = (approval: ToolActivity['approval']) => (approval ? { decision: approval.decision, by: approval.by ? actorLabel(approval.by, names) : null, reason: approval.reason ?? null } : null);
  let remoteRunId: string | null = null;

  for (const { seq, event } of events) {
    // A bridged event carries the peer's task id in its metadata (a2a/client/remote-bridge.ts).
    const origin = (event as { metadata?: { remote?: { taskId?: unknown } } }).metadata?.remote;
    if (!remoteRunId && typeof origin?.taskId === 'string') remoteRunId = origin.taskId;
    switch (event.type) {
      case 'created':
        entries.push({ type: 'created', seq, at: event.status.timestamp, input: boundedText(textOf(event.input) || event.input.parts) });
        break;
      case 'round':
        counted(event.index, event.call ? [event.call] : undefined);
        break;
      case 'step': {
        const own = stepUsage(event.calls);
        if (own) stepUsages.push(own);
        const usage = stepUsage([...(earlierCalls.get(event.index) ?? []), ...(event.calls ?? [])]);
        earlierCalls.delete(event.index);
        // The last step's record is stored after the answer and the ending it produced (one insert,
        // so callers' event ids stay as they were): on the timeline it comes before them.
        let at = entries.length;
        const last = entries[at - 1];
        if (last?.type === 'status' && isTerminal(last.state) && last.seq === seq - 1) {
          at--;
          if (entries[at - 1]?.type === 'artifact' && entries[at - 1]!.seq === seq - 2) at--;
        }
        entries.splice(at, 0, {
          type: 'step',
          seq,
          index: event.index,
          stepId: event.stepId,
          kind: event.kind ?? null,
          startedAt: event.startedAt ?? null,
          endedAt: event.startedAt && typeof event.durationMs === 'number' ? plusMs(event.startedAt, event.durationMs) : null,
          durationMs: event.durationMs ?? null,
          attempts: event.attempts ?? null,
          status: event.failed ? 'failed' : event.skipped ? 'skipped' : 'done',
          output: boundedText(event.output),
          usage,
          remote: event.remote ? remoteTask(event.remote.peerId, event.remote.taskId, peers) : null,
          remoteUsage: event.remote?.usage ?? null,
        });
        break;
      }
      case 'status': {
        const at = event.status.timestamp;
        if (event.tool) {
          const entry = toolEntry(seq, at, event.tool);
          const tool = event.tool;
          if (tool.phase === 'call') entry.approval = approvalOf(tool.approval);
          else {
            counted(tool.index, tool.calls);
            Object.assign(entry, {
              outcome: tool.outcome,
              result: tool.outcome === 'ok' ? boundedText(tool.output) : null,
              error: tool.error ?? null,
              durationMs: tool.durationMs,
              approval: approvalOf(tool.approval) ?? entry.approval,
              usage: stepUsage(tool.calls),
              remote: tool.remote ? remoteTask(tool.remote.peerId, tool.remote.taskId, peers) : null,
            });
          }
          break;
        }
        if (event.answer) {
          const values = boundedText(event.answer.values);
          const by = event.answer.by ? actorLabel(event.answer.by, names) : null;
          const pause = openPauses.get(event.answer.screenId);
          const answer = { seq, at, by, values };
          if (pause) {
            pause.answer = answer;
            openPauses.delete(event.answer.screenId);
          } else {
            // The pause is on an earlier page: the answer stands on its own.
            entries.push({ type: 'pause', seq, at, title: event.answer.screenId, screenId: event.answer.screenId, remote: null, answer });
          }
        }
        if (event.interrupt) {
          if (event.interrupt.remoteRunId) remoteRunId = event.interrupt.remoteRunId;
          const pause: Extract<TimelineEntry, { type: 'pause' }> = {
            type: 'pause',
            seq,
            at,
            title: event.interrupt.title,
            screenId: event.interrupt.screenId,
            remote: head.remote && event.interrupt.remoteRunId ? remoteTask(head.remote.peerId, event.interrupt.remoteRunId, peers) : null,
            answer: null,
          };
          openPauses.set(pause.screenId, pause);
          entries.push(pause);
        } else if (!event.answer || event.status.message) {
          entries.push({ type: 'status', seq, at, state: event.status.state, text: messageText(event.status.message) });
        }
        break;
      }
      case 'artifact':
        entries.push({ type: 'artifact', seq, name: event.artifact.name ?? null, text: boundedText(textOf(event.artifact) || event.artifact.parts) });
        break;
      case 'message':
        entries.push({ type: 'message', seq, role: event.message.role, text: boundedText(textOf(event.message) || event.message.parts) });
        break;
      case 'progress':
        break;
    }
  }

  const endedAt = isTerminal(head.state) ? head.status.timestamp : null;
  const durationMs = endedAt ? Math.max(0, Date.parse(endedAt) - Date.parse(head.createdAt)) : null;
  const summed: RunUsage | null =
    context.wholeLog && stepUsages.length
      ? {
          calls: stepUsages.reduce((sum, u) => sum + u.calls, 0),
          inputTokens: stepUsages.reduce((sum, u) => sum + u.inputTokens, 0),
          outputTokens: stepUsages.reduce((sum, u) => sum + u.outputTokens, 0),
          ...(stepUsages.some((u) => u.costUsd !== null) ? { costUsd: stepUsages.reduce((sum, u) => sum + (u.costUsd ?? 0), 0) } : {}),
        }
      : null;
  // A bridged run's task on the peer, as its events name it (unknown on a page without one).
  const remote = head.remote && remoteRunId ? remoteTask(head.remote.peerId, remoteRunId, peers) : null;
  return {
    startedAt: head.createdAt,
    endedAt,
    durationMs: Number.isNaN(durationMs) ? null : durationMs,
    startedBy: actorLabel({ type: head.actorType, id: head.actorId }, names),
    input: boundedText(textOf(head.input) || head.input.parts),
    usage: head.usage ?? summed,
    traceUrl: traceUrl(context.traceUiUrl, head.traceparent),
    remote,
    entries,
  };
}

/** The actors and peers a page of events names, for the caller to look up before building. */
export function namedIn(head: RunSummary, events: readonly StoredEvent[]): { actors: RunActor[]; peerIds: string[] } {
  const actors: RunActor[] = [{ type: head.actorType, id: head.actorId }];
  const peerIds = new Set<string>(head.remote ? [head.remote.peerId] : []);
  for (const { event } of events) {
    if (event.type === 'status' && event.answer?.by) actors.push(event.answer.by);
    if (event.type === 'status' && event.tool?.approval?.by) actors.push(event.tool.approval.by);
    if (event.type === 'status' && event.tool?.phase === 'result' && event.tool.remote) peerIds.add(event.tool.remote.peerId);
    if (event.type === 'step' && event.remote) peerIds.add(event.remote.peerId);
  }
  return { actors, peerIds: [...peerIds] };
}

