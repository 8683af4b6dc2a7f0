import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A run's head (an A2A task): who asked which agent, where it stands and when it last changed.
 * `_id` is the run id (a UUIDv7). The head is a projection of the run's event log
 * (`run_events`), moved forward after each status event; it holds nothing that grows with the
 * run (history, artifacts and step outputs are read from the log). Its indexes serve every
 * listing a page at a time: a caller's tasks newest status first (A2A ListTasks, with or
 * without a state or context filter: `listKey` ranges), and the runs page newest run first (all:
 * the primary key, since run ids are time-ordered; or by state, agent or caller); retention
 * finds finished runs by `state` + `_id`.
 */
export const runSchema = new Schema(
  {
    _id: { type: String, required: true },
    contextId: { type: String, required: true },
    agent: { type: String, required: true },
    /** A RunState (runs/model.ts). */
    state: { type: String, required: true },
    /** Sequence number of the latest status event folded in here (a hint: the log may be ahead). */
    lastSeq: { type: Number, required: true },
    actorType: { type: String, required: true },
    actorId: { type: String, required: true },
    /** `<actorType>:<actorId>`: who started the run, as one value, so a caller's listings are one index term. */
    caller: { type: String, required: true },
    /** The idempotency keys (`run_keys` ids) that created it, to tell a run left by a creation that lost its keys. */
    keys: { type: [String], default: [] },
    /** The first message, as JSON text (its keys are the caller's: see runs/stored-json.ts). */
    input: { type: String, required: true },
    /** The latest RunStatus, as JSON text. */
    status: { type: String, required: true },
    /** A run bridged from a peer: `{ peerId, skillId }`. */
    remote: { type: Schema.Types.Mixed, default: null },
    /** The W3C traceparent of the request that started the run (only while tracing is on). */
    traceparent: { type: String },
    /** LLM usage so far (`RunUsage`: calls, inputTokens, outputTokens, costUsd), moved forward as steps are stored (ADR 0040). */
    usage: { type: Schema.Types.Mixed },
    /** The storage layout this head is written in (2 since ADR 0019). */
    v: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    /** The latest status's time. */
    updatedAt: { type: Date, required: true },
    /** What listings sort and page on: `<updatedAt, ms, 13 digits>/<_id>` (unique, so a page token is one value). */
    listKey: { type: String, required: true },
  },
  { collection: 'runs', minimize: false, versionKey: false },
);
runSchema.index({ caller: 1, listKey: -1 }, { name: 'caller_recent' });
runSchema.index({ caller: 1, state: 1, listKey: -1 }, { name: 'caller_state_recent' });
runSchema.index({ caller: 1, contextId: 1, listKey: -1 }, { name: 'caller_context_recent' });
runSchema.index({ caller: 1, _id: -1 }, { name: 'caller_newest' });
runSchema.index({ state: 1, _id: -1 }, { name: 'state_newest' });
runSchema.index({ agent: 1, _id: -1 }, { name: 'agent_newest' });

export type RunRecord = InferSchemaType<typeof runSchema>;
