import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One ended run's LLM usage, counted toward one day of one agent or one caller (ADR 0040).
 * `_id` is `<dimension>/<day>/<key>/<run>` (dimension `agent` or `caller`, day `YYYY-MM-DD`
 * in UTC, key the agent name or the run's `caller`, run a digest of the run id, so the row
 * outlives the run without naming it): the run makes the row's insert the one
 * decision (a second insert for the same run end is a duplicate and absorbed: exactly once),
 * and the prefix makes a page of days of one dimension one `_id` range. Only ever inserted,
 * never updated: FerretDB 1.24 loses concurrent `$inc`s (ADR 0030). A closed day's rows are
 * folded into one document `day/<dimension>/<day>` holding `totals` (every key's UsageTotal) and
 * `at`, and then deleted (usage/rollups.ts).
 */
export const usageRowSchema = new Schema(
  {
    _id: { type: String, required: true },
    calls: { type: Number, required: true },
    inputTokens: { type: Number, required: true },
    outputTokens: { type: Number, required: true },
    /** Absent when none of the run's calls had a price. */
    costUsd: { type: Number },
    /** When the run ended. */
    at: { type: Date, required: true },
  },
  { collection: 'usage_rows', versionKey: false },
);

export type UsageRowRecord = InferSchemaType<typeof usageRowSchema>;
