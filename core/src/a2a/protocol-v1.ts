import { z } from 'zod';
import type { TaskState } from '../db/index.ts';
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
