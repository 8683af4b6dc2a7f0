import { z } from 'zod';
import { TERMINAL_STATES as TERMINAL, type TaskState } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { A2aEvent, Artifact, Message, Part, Task, TaskStatus } from './protocol.ts';

/**
 * A2A protocol v1.0 on the JSON-RPC binding, translated at the seam: requests are read into the
 * v0.3 shapes the run store and event log hold (one internal model), and answers are written
 * back in v1.0 shapes. So a task started over either version reads the same over both.
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

const STATE_TO_V1: Record<TaskState, string> = {
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
const STATE_FROM_V1 = new Map(Object.entries(STATE_TO_V1).map(([internal, v1]) => [v1, internal as TaskState]));

export const stateToV1 = (state: TaskState): string => STATE_TO_V1[state] ?? 'TASK_STATE_UNSPECIFIED';

/** A v1.0 state name (or the v0.3 one) as the internal state; unknown names are invalid params. */
export function stateFromV1(name: string): TaskState {
  const state = STATE_FROM_V1.get(name) ?? (name in STATE_TO_V1 && name !== 'unknown' ? (name as TaskState) : undefined);
  if (!state || state === 'unknown') throw new DomainError('VALIDATION_FAILED', `Invalid params: unknown task state "${name}"`, { details: [{ path: 'status', reason: `one of ${[...STATE_FROM_V1.keys()].filter((s) => s !== 'TASK_STATE_UNSPECIFIED').join(', ')}` }] });
  return state;
}

function partFromV1(part: PartV1): Part {
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...metadata };
  if (part.data !== undefined) {
    // The internal data part holds an object; any other JSON value is wrapped, and said so.
    const value = part.data;
    const data = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
    return { kind: 'data', data, ...metadata };
  }
  const file = { ...(part.filename ? { name: part.filename } : {}), ...(part.mediaType ? { mimeType: part.mediaType } : {}) };
  return part.raw !== undefined ? { kind: 'file', file: { ...file, bytes: part.raw }, ...metadata } : { kind: 'file', file: { ...file, uri: part.url! }, ...metadata };
}

function partToV1(part: Part): Record<string, unknown> {
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  switch (part.kind) {
    case 'text':
      return { text: part.text, ...metadata };
    case 'data':
      return { data: part.data, mediaType: 'application/json', ...metadata };
    case 'file':
      return {
        ...(part.file.bytes !== undefined ? { raw: part.file.bytes } : { url: part.file.uri ?? '' }),
        ...(part.file.name ? { filename: part.file.name } : {}),
        ...(part.file.mimeType ? { mediaType: part.file.mimeType } : {}),
        ...metadata,
      };
  }
}

/** A v1.0 message as the internal (v0.3-shaped) one. */
export function messageFromV1(message: MessageV1): Message {
  return {
    kind: 'message',
    messageId: message.messageId,
    role: ROLES[message.role],
    parts: message.parts.map(partFromV1),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.referenceTaskIds ? { referenceTaskIds: message.referenceTaskIds } : {}),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

export function messageToV1(message: Message): Record<string, unknown> {
  return {
    messageId: message.messageId,
    role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: message.parts.map(partToV1),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.referenceTaskIds?.length ? { referenceTaskIds: message.referenceTaskIds } : {}),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

function statusToV1(status: TaskStatus): Record<string, unknown> {
  return { state: stateToV1(status.state), ...(status.message ? { message: messageToV1(status.message) } : {}), timestamp: status.timestamp };
}

function artifactToV1(artifact: Artifact): Record<string, unknown> {
  return { artifactId: artifact.artifactId, ...(artifact.name ? { name: artifact.name } : {}), parts: artifact.parts.map(partToV1), ...(artifact.metadata ? { metadata: artifact.metadata } : {}) };
}

/** The v1.0 Task; `history` and `artifacts` only when the task has them (the caller trims). */
export function taskToV1(task: Task): Record<string, unknown> {
  return {
    id: task.id,
    contextId: task.contextId,
    status: statusToV1(task.status),
    ...(task.artifacts?.length ? { artifacts: task.artifacts.map(artifactToV1) } : {}),
    ...(task.history?.length ? { history: task.history.map(messageToV1) } : {}),
    ...(task.metadata ? { metadata: task.metadata } : {}),
  };
}

/** A stored event as a v1.0 StreamResponse: exactly one of task, message, statusUpdate, artifactUpdate. */
export function streamResponseV1(event: A2aEvent): Record<string, unknown> {
  switch (event.kind) {
    case 'task':
      return { task: taskToV1(event) };
    case 'message':
      return { message: messageToV1(event) };
    case 'status-update':
      return { statusUpdate: { taskId: event.taskId, contextId: event.contextId, status: statusToV1(event.status), ...(event.metadata ? { metadata: event.metadata } : {}) } };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: artifactToV1(event.artifact),
          ...(event.append !== undefined ? { append: event.append } : {}),
          ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
          ...(event.metadata ? { metadata: event.metadata } : {}),
        },
      };
  }
}

// Reading a v1.0 peer's answers (the outbound client): lenient, into the internal shapes.

/** A peer's JSON, read field by field with checks at each use (never trusted as a whole). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Wire = Record<string, any>;
const INTERRUPTED: readonly TaskState[] = ['input-required', 'auth-required'];

function wireState(name: unknown): TaskState {
  return (typeof name === 'string' && STATE_FROM_V1.get(name)) || 'unknown';
}

function wireParts(parts: unknown): Part[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part: Wire) => {
    if (!part || typeof part !== 'object') return [];
    const parsed = partV1Schema.safeParse(part);
    return parsed.success ? [partFromV1(parsed.data)] : [];
  });
}

function wireMessage(message: Wire | undefined): Message | undefined {
  if (!message || typeof message !== 'object') return undefined;
  return {
    kind: 'message',
    messageId: String(message.messageId ?? ''),
    role: message.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: wireParts(message.parts),
    ...(message.taskId ? { taskId: String(message.taskId) } : {}),
    ...(message.contextId ? { contextId: String(message.contextId) } : {}),
    ...(message.metadata && typeof message.metadata === 'object' ? { metadata: message.metadata } : {}),
  };
}

function wireStatus(status: Wire | undefined): TaskStatus {
  const message = wireMessage(status?.message);
  return { state: wireState(status?.state), timestamp: typeof status?.timestamp === 'string' ? status.timestamp : new Date().toISOString(), ...(message ? { message } : {}) };
}

function wireArtifact(artifact: Wire): Artifact {
  return { artifactId: String(artifact?.artifactId ?? ''), ...(artifact?.name ? { name: String(artifact.name) } : {}), parts: wireParts(artifact?.parts), ...(artifact?.metadata ? { metadata: artifact.metadata } : {}) };
}

/** A v1.0 Task from a peer, as the internal Task. */
export function taskFromV1(task: Wire): Task {
  return {
    kind: 'task',
    id: String(task?.id ?? ''),
    contextId: String(task?.contextId ?? ''),
    status: wireStatus(task?.status),
    history: Array.isArray(task?.history) ? task.history.flatMap((m: Wire) => wireMessage(m) ?? []) : [],
    artifacts: Array.isArray(task?.artifacts) ? task.artifacts.map(wireArtifact) : [],
    ...(task?.metadata ? { metadata: task.metadata } : {}),
  };
}

/**
 * A v1.0 StreamResponse (or SendMessageResponse) from a peer, as the internal event. v1.0 has no
 * `final`: a status that ends the task or pauses it for input ends its stream.
 */
export function eventFromV1(response: Wire): A2aEvent | null {
  if (response?.task) return taskFromV1(response.task);
  if (response?.message) return wireMessage(response.message) as Message & { kind: 'message' };
  const status = response?.statusUpdate ?? response?.status_update;
  if (status) {
    const parsed = wireStatus(status.status);
    const ends = [...TERMINAL, ...INTERRUPTED].includes(parsed.state);
    return { kind: 'status-update', taskId: String(status.taskId ?? ''), contextId: String(status.contextId ?? ''), status: parsed, final: ends, ...(status.metadata ? { metadata: status.metadata } : {}) };
  }
  const artifact = response?.artifactUpdate ?? response?.artifact_update;
  if (artifact) {
    return { kind: 'artifact-update', taskId: String(artifact.taskId ?? ''), contextId: String(artifact.contextId ?? ''), artifact: wireArtifact(artifact.artifact), ...(artifact.append !== undefined ? { append: Boolean(artifact.append) } : {}), ...(artifact.lastChunk !== undefined ? { lastChunk: Boolean(artifact.lastChunk) } : {}) };
  }
  return null;
}

/** Internal send params as a v1.0 SendMessageRequest. */
export function sendParamsToV1(params: { message: Message; metadata?: Record<string, unknown> }): Record<string, unknown> {
  return { message: messageToV1(params.message), ...(params.metadata ? { metadata: params.metadata } : {}) };
}
