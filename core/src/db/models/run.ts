import { Schema, type InferSchemaType } from 'mongoose';

export const TASK_STATES = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TERMINAL_STATES: readonly TaskState[] = ['completed', 'canceled', 'failed', 'rejected'];

/**
 * A durable run (an A2A task). `_id` is the task id, a UUIDv7, so ids sort by creation time: reads
 * by id and the newest-first runs page are both served by the primary key (no other index).
 */
export const runSchema = new Schema(
  {
    _id: { type: String, required: true },
    contextId: { type: String, required: true },
    agent: { type: String, required: true },
    state: { type: String, enum: TASK_STATES, required: true },
    /** Sequence number of the last appended event; the next one is lastSeq + 1. */
    lastSeq: { type: Number, required: true, default: 0 },
    actorType: { type: String, required: true },
    actorId: { type: String, required: true },
    input: { type: Schema.Types.Mixed, required: true },
    /** The latest A2A TaskStatus and the artifacts so far, kept in step with the event log. */
    status: { type: Schema.Types.Mixed, required: true },
    artifacts: { type: [Schema.Types.Mixed], default: [] },
    /** Messages of the task after its input, in order: the agent's status messages and the caller's answers. */
    history: { type: [Schema.Types.Mixed], default: [] },
    /** Executor state: step cursor, step outputs, the pending interrupt. */
    progress: { type: Schema.Types.Mixed, default: {} },
  },
  { timestamps: true, collection: 'runs', minimize: false },
);

export type RunRecord = InferSchemaType<typeof runSchema>;
