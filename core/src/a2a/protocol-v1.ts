import { z } from 'zod';
import { DomainError } from '../errors/index.ts';
import { INTERRUPTED_STATES, TERMINAL_STATES, type Interrupt, type Metadata, type RunArtifact, type RunEvent, type RunMessage, type RunPart, type RunState, type RunStatus, type RunView, type VisibleRunEvent } from '../runs/index.ts';
import { interruptPayload } from './hitl-answer.ts';
import { isObject, pauseOf, withMetadata, withoutInterrupt } from './wire.ts';

/**
 * A2A protocol v1.0 on the JSON-RPC binding, the service's primary protocol: its shapes and
 * their translation to and from the run model (runs/model.ts). A task started over either
 * version reads the same over both (v0.3 lives in compat/v03).
 */
export const A2A_V1_VERSION = '1.0';

const metadataSchema = z.record(z.string(), z.unknown());

/** A v1.0 Part: exactly one of `text`, `raw` (base64), `url`, `data` (any JSON value), no `kind`. */
const partV1Schema = z
  .object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    filename: z.string().max(1000).optional(),
    mediaType: z.string().max(200).optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((part) => ['text', 'raw', 'url', 'data'].filter((key) => part[key as keyof typeof part] !== undefined).length === 1, {
    message: 'A part carries exactly one of text, raw, url or data',
  });

const ROLES = { ROLE_USER: 'user', ROLE_AGENT: 'agent' } as const;

export const messageV1Schema = z.object({
  messageId: z.string().min(1).max(200),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: z.array(partV1Schema).min(1).max(100),
  taskId: z.string().max(200).optional(),
  contextId: z.string().max(200).optional(),
  referenceTaskIds: z.array(z.string().max(200)).max(100).optional(),
  extensions: z.array(z.string().max(500)).max(20).optional(),
  metadata: metadataSchema.optional(),
});

export const sendMessageV1Schema = z.object({
  tenant: z.string().optional(),
  message: messageV1Schema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().min(0, 'historyLength must not be negative').optional(),
      returnImmediately: z.boolean().optional(),
      /** Earlier 1.0 drafts: `blocking: false` meant what `returnImmediately: true` means now. */
      blocking: z.boolean().optional(),
      taskPushNotificationConfig: z.unknown().optional(),
      pushNotificationConfig: z.unknown().optional(),
    })
    .passthrough()
    .optional(),
  metadata: metadataSchema.optional(),
});

export const taskIdV1Schema = z.object({
  tenant: z.string().optional(),
  id: z.string().min(1).max(200),
  historyLength: z.number().int().min(0, 'historyLength must not be negative').optional(),
  metadata: metadataSchema.optional(),
});

export type MessageV1 = z.infer<typeof messageV1Schema>;
export type PartV1 = z.infer<typeof partV1Schema>;
export type SendMessageV1 = z.infer<typeof sendMessageV1Schema>;

const STATE_TO_V1: Record<RunState, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};
const STATE_FROM_V1 = new Map(Object.entries(STATE_TO_V1).map(([internal, v1]) => [v1, internal as RunState]));

export const stateToV1 = (state: RunState): string => STATE_TO_V1[state] ?? 'TASK_STATE_UNSPECIFIED';

/** A v1.0 state name (or the v0.3 one) as the internal state; unknown names are invalid params. */
export function stateFromV1(name: string): RunState {
  const state = STATE_FROM_V1.get(name) ?? (name in STATE_TO_V1 && name !== 'unknown' ? (name as RunState) : undefined);
  if (!state || state === 'unknown') throw new DomainError('VALIDATION_FAILED', `Invalid params: unknown task state "${name}"`, { details: [{ path: 'status', reason: `one of ${[...STATE_FROM_V1.keys()].filter((s) => s !== 'TASK_STATE_UNSPECIFIED').join(', ')}` }] });
  return state;
}


function partFromV1(part: PartV1): RunPart {
  const metadata = withMetadata(part.metadata);
  if (part.text !== undefined) return { type: 'text', text: part.text, ...metadata };
  if (part.data !== undefined) return { type: 'data', data: part.data, ...metadata };
  const file = { ...(part.filename ? { name: part.filename } : {}), ...(part.mediaType ? { mediaType: part.mediaType } : {}) };
  return part.raw !== undefined ? { type: 'file', ...file, bytes: part.raw, ...metadata } : { type: 'file', ...file, url: part.url!, ...metadata };
}

function partToV1(part: RunPart): Record<string, unknown> {
  const metadata = withMetadata(part.metadata);
  switch (part.type) {
    case 'text':
      return { text: part.text, ...metadata };
    case 'data':
      return { data: part.data, mediaType: 'application/json', ...metadata };
    case 'file':
      return {
        ...(part.bytes !== undefined ? { raw: part.bytes } : { url: part.url ?? '' }),
        ...(part.name ? { filename: part.name } : {}),
        ...(part.mediaType ? { mediaType: part.mediaType } : {}),
        ...metadata,
      };
  }
}

export function messageFromV1(message: MessageV1): RunMessage {
  return {
    id: message.messageId,
    role: ROLES[message.role],
    parts: message.parts.map(partFromV1),
    ...(message.taskId ? { runId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.referenceTaskIds ? { referenceRunIds: message.referenceTaskIds } : {}),
    ...(message.extensions ? { extensions: message.extensions } : {}),
    ...withMetadata(message.metadata),
  };
}

export function messageToV1(message: RunMessage): Record<string, unknown> {
  return {
    messageId: message.id,
    role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: message.parts.map(partToV1),
    ...(message.runId ? { taskId: message.runId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.referenceRunIds?.length ? { referenceTaskIds: message.referenceRunIds } : {}),
    ...(message.extensions?.length ? { extensions: message.extensions } : {}),
    ...withMetadata(message.metadata),
  };
}

/** A status as v1.0 shows it; a pause's message also carries the INTERRUPT as a data part. */
function statusToV1(status: RunStatus, runId: string, interrupt?: Interrupt | null): Record<string, unknown> {
  const message = status.message ? messageToV1(status.message) : undefined;
  if (message && interrupt) message.parts = [...(message.parts as unknown[]), partToV1({ type: 'data', data: { interrupt: interruptPayload(runId, interrupt) } })];
  return { state: stateToV1(status.state), ...(message ? { message } : {}), timestamp: status.timestamp };
}

function artifactToV1(artifact: RunArtifact): Record<string, unknown> {
  return { artifactId: artifact.id, ...(artifact.name ? { name: artifact.name } : {}), ...(artifact.description ? { description: artifact.description } : {}), parts: artifact.parts.map(partToV1), ...withMetadata(artifact.metadata) };
}

/**
 * The v1.0 Task for a run: the history holds every message of the task (the input, the agent's
 * messages, the caller's answers), the newest `historyLength` of them when that is given (0:
 * none); `history` and `artifacts` only when there are any.
 */
export function taskToV1(run: RunView, options: { historyLength?: number; artifacts?: boolean } = {}): Record<string, unknown> {
  const all = [run.input, ...run.history];
  const length = options.historyLength;
  const history = length === undefined ? all : length === 0 ? [] : all.slice(-length);
  const artifacts = options.artifacts === false ? [] : run.artifacts;
  return {
    id: run.id,
    contextId: run.contextId,
    status: statusToV1(run.status, run.id, run.interrupt),
    ...(artifacts.length ? { artifacts: artifacts.map(artifactToV1) } : {}),
    ...(history.length ? { history: history.map(messageToV1) } : {}),
    metadata: { agent: run.agent, ...(run.usage ? { usage: run.usage } : {}) },
  };
}

/** A stored event as a v1.0 StreamResponse: exactly one of task, message, statusUpdate, artifactUpdate. */
export function streamResponseV1(event: VisibleRunEvent, run: { id: string; contextId: string }): Record<string, unknown> {
  switch (event.type) {
    case 'created':
      return { task: { id: run.id, contextId: run.contextId, status: statusToV1(event.status, run.id), history: [messageToV1(event.input)], metadata: { agent: event.agent } } };
    case 'message':
      return { message: messageToV1({ ...event.message, runId: run.id, contextId: run.contextId }) };
    case 'status': {
      const metadata = { ...(event.metadata ?? {}), ...(event.interrupt ? { interrupt: interruptPayload(run.id, event.interrupt) } : {}) };
      return { statusUpdate: { taskId: run.id, contextId: run.contextId, status: statusToV1(event.status, run.id, event.interrupt), ...(Object.keys(metadata).length ? { metadata } : {}) } };
    }
    case 'artifact':
      return {
        artifactUpdate: {
          taskId: run.id,
          contextId: run.contextId,
          artifact: artifactToV1(event.artifact),
          ...(event.append !== undefined ? { append: event.append } : {}),
          ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
          ...withMetadata(event.metadata),
        },
      };
  }
}

// Reading a v1.0 peer's answers (the outbound client): lenient, into the run model.

/** A peer's JSON, read field by field with checks at each use (never trusted as a whole). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Wire = Record<string, any>;

function wireState(name: unknown): RunState {
  return (typeof name === 'string' && STATE_FROM_V1.get(name)) || 'unknown';
}

function wireParts(parts: unknown): RunPart[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part: Wire) => {
    if (!part || typeof part !== 'object') return [];
    const parsed = partV1Schema.safeParse(part);
    return parsed.success ? [partFromV1(parsed.data)] : [];
  });
}

function wireMessage(message: Wire | undefined): RunMessage | undefined {
  if (!message || typeof message !== 'object') return undefined;
  return {
    id: String(message.messageId ?? ''),
    role: message.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: wireParts(message.parts),
    ...(message.taskId ? { runId: String(message.taskId) } : {}),
    ...(message.contextId ? { contextId: String(message.contextId) } : {}),
    ...(isObject(message.metadata) ? { metadata: message.metadata } : {}),
  };
}

/** A peer's status: its INTERRUPT (if any) is read out of the message's data part into the pause it describes. */
function wireStatus(status: Wire | undefined, metadata: unknown): { status: RunStatus; interrupt?: Interrupt } {
  const state = wireState(status?.state);
  const { message, interrupt } = pauseOf(wireMessage(status?.message), metadata, state);
  return { status: { state, timestamp: typeof status?.timestamp === 'string' ? status.timestamp : new Date().toISOString(), ...(message ? { message } : {}) }, ...(interrupt ? { interrupt } : {}) };
}

function wireArtifact(artifact: Wire): RunArtifact {
  return { id: String(artifact?.artifactId ?? ''), ...(artifact?.name ? { name: String(artifact.name) } : {}), parts: wireParts(artifact?.parts), ...(isObject(artifact?.metadata) ? { metadata: artifact.metadata } : {}) };
}

/** A v1.0 Task from a peer: its id, state, status and artifacts. */
export function taskFromV1(task: Wire): { id: string; contextId: string; status: RunStatus; artifacts: RunArtifact[]; history: RunMessage[] } {
  return {
    id: String(task?.id ?? ''),
    contextId: String(task?.contextId ?? ''),
    status: wireStatus(task?.status, task?.metadata).status,
    history: Array.isArray(task?.history) ? task.history.flatMap((m: Wire) => wireMessage(m) ?? []) : [],
    artifacts: Array.isArray(task?.artifacts) ? task.artifacts.map(wireArtifact) : [],
  };
}

/**
 * A v1.0 StreamResponse (or SendMessageResponse) from a peer, as a run event. v1.0 has no
 * `final`: a status that ends the task or pauses it for input ends its stream.
 */
export function eventFromV1(response: Wire): RunEvent | null {
  if (response?.task) {
    const task = taskFromV1(response.task);
    return { type: 'created', runId: task.id, contextId: task.contextId, agent: String(response.task?.metadata?.agent ?? ''), input: task.history[0] ?? { id: '', role: 'user', parts: [] }, status: task.status };
  }
  if (response?.message) {
    const message = wireMessage(response.message);
    return message ? { type: 'message', message } : null;
  }
  const update = response?.statusUpdate ?? response?.status_update;
  if (update) {
    const { status, interrupt } = wireStatus(update.status, update.metadata);
    const final = [...TERMINAL_STATES, ...INTERRUPTED_STATES].includes(status.state);
    return { type: 'status', status, final, ...(interrupt ? { interrupt } : {}), ...withMetadata(withoutInterrupt(update.metadata)) };
  }
  const artifact = response?.artifactUpdate ?? response?.artifact_update;
  if (artifact) {
    return { type: 'artifact', artifact: wireArtifact(artifact.artifact), ...(artifact.append !== undefined ? { append: Boolean(artifact.append) } : {}), ...(artifact.lastChunk !== undefined ? { lastChunk: Boolean(artifact.lastChunk) } : {}), ...(isObject(artifact.metadata) ? { metadata: artifact.metadata } : {}) };
  }
  return null;
}

/** A message (and request metadata) as a v1.0 SendMessageRequest. */
export function sendParamsToV1(params: { message: RunMessage; metadata?: Metadata }): Record<string, unknown> {
  return { message: messageToV1(params.message), ...withMetadata(params.metadata) };
}
