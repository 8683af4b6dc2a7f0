import { z } from 'zod';
import type { TaskState } from '../db/index.ts';

/** A2A protocol v0.3 shapes (the JSON-RPC binding), as far as this service uses them. */
export const A2A_PROTOCOL_VERSION = '0.3.0';

export const partSchema = z.union([
  z.object({ kind: z.literal('text'), text: z.string(), metadata: z.record(z.string(), z.unknown()).optional() }),
  z.object({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()), metadata: z.record(z.string(), z.unknown()).optional() }),
  z.object({
    kind: z.literal('file'),
    file: z.object({ name: z.string().optional(), mimeType: z.string().optional(), bytes: z.string().optional(), uri: z.string().optional() }),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
]);

export const messageSchema = z.object({
  kind: z.literal('message').default('message'),
  messageId: z.string().min(1).max(200),
  role: z.enum(['user', 'agent']),
  parts: z.array(partSchema).min(1).max(100),
  taskId: z.string().max(200).optional(),
  contextId: z.string().max(200).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const messageSendParamsSchema = z.object({
  message: messageSchema,
  configuration: z
    .object({
      blocking: z.boolean().optional(),
      historyLength: z.number().int().min(0).optional(),
      acceptedOutputModes: z.array(z.string()).optional(),
    })
    .passthrough()
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const taskIdParamsSchema = z.object({ id: z.string().min(1).max(200), historyLength: z.number().int().min(0).optional(), metadata: z.record(z.string(), z.unknown()).optional() });

export type Part = z.infer<typeof partSchema>;
export type Message = z.infer<typeof messageSchema>;
export type MessageSendParams = z.infer<typeof messageSendParamsSchema>;

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  history?: Message[];
  artifacts?: Artifact[];
  metadata?: Record<string, unknown>;
}

export interface TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
  metadata?: Record<string, unknown>;
}

export interface TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

export type A2aEvent = Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent | (Message & { kind: 'message' });

/**
 * How a HITL pause is described in the `input-required` status: the status message carries a
 * data part `{ interrupt: { type: "INTERRUPT", screenId, title, schema } }` and the same object in
 * the event's metadata. A resume is a message with `taskId` and a data part
 * `{ resume: { screenId, values } }`.
 */
export interface InterruptPayload {
  type: 'INTERRUPT';
  runId: string;
  stepId: string;
  screenId: string;
  title: string;
  schema: Record<string, unknown>;
  /** What is being answered about: the outputs of the steps before the pause, by step id, as text (bounded). */
  context?: Record<string, string>;
  /** The answer shapes this pause takes: `resume` ({ resume: { screenId, values } }), `values` (a data part of just the values), `text` (plain text, for a screen with one text field). */
  accepts?: string[];
}

export const resumeSchema = z.object({ screenId: z.string().min(1), values: z.record(z.string(), z.unknown()) });
export type ResumePayload = z.infer<typeof resumeSchema>;

export function textOf(message: Pick<Message, 'parts'>): string {
  return message.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('\n');
}

export function resumeOf(message: Pick<Message, 'parts' | 'metadata'>): ResumePayload | null {
  for (const part of message.parts) {
    if (part.kind === 'data' && 'resume' in part.data) {
      const parsed = resumeSchema.safeParse(part.data.resume);
      if (parsed.success) return parsed.data;
    }
  }
  const fromMetadata = resumeSchema.safeParse(message.metadata?.resume);
  return fromMetadata.success ? fromMetadata.data : null;
}
