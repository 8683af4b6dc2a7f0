import { Types } from 'mongoose';
import type { Models } from '../db/index.ts';
import { stepViews, type JobStep } from './step-tracker.ts';

/**
 * The jobs page: publish and promote jobs, import jobs and the sync history of imported
 * extensions, newest first, a page at a time. Each kind is its own collection; a page reads at
 * most `limit + 1` rows of each kind asked for (by `_id`, or by a `state`/`outcome` index when
 * filtered) and merges them by `_id`, whose first bytes are the creation second.
 */

export const JOB_KINDS = ['publish', 'import', 'sync'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const JOB_STATES = ['running', 'awaiting-confirmation', 'succeeded', 'failed', 'discarded'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface ListedJob {
  kind: JobKind;
  id: string;
  /** What the job did, in words: `publish @acme/x (private)`, `import github.com/acme/x`, `sync updated 1.0.0 → 1.1.0`. */
  title: string;
  state: JobState;
  /** The stored outcome of a sync (`review-failed`, `license-changed` …), which `state` sums up. */
  outcome: string | null;
  steps: JobStep[];
  createdAt: string;
  updatedAt: string;
  /** From start to the last change, for a job that ended; null while it runs or waits. */
  durationMs: number | null;
  /** Why it failed: the failing step's label (when a step failed) and the message. */
  failure: { step: string | null; message: string } | null;
  /** The page that shows the job. */
  href: string;
}

export interface JobFilter {
  kind?: JobKind;
  state?: JobState;
}

/** A sync's outcome as a job state: an update is a success, a refusal a failure. */
const SYNC_OUTCOMES: Partial<Record<JobState, string[]>> = { succeeded: ['installed', 'updated'], failed: ['failed', 'review-failed', 'license-changed'] };
const ENDED: JobState[] = ['succeeded', 'failed', 'discarded'];

const iso = (value: unknown): string => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString());

function durationOf(state: JobState, createdAt: string, updatedAt: string): number | null {
  return ENDED.includes(state) ? Math.max(0, Date.parse(updatedAt) - Date.parse(createdAt)) : null;
}

function failureOf(state: JobState, steps: JobStep[], error: unknown): ListedJob['failure'] {
  if (state !== 'failed') return null;
  const step = steps.find((s) => s.state === 'failed');
  const message = (error as { message?: unknown } | null)?.message;
  return { step: step?.label ?? null, message: typeof message === 'string' ? message : (step?.detail ?? 'failed') };
}

type Row = Record<string, unknown> & { _id: Types.ObjectId; createdAt: Date; updatedAt: Date };

/** A publish or import job row as the list shows it: the two keep their steps and failure alike. */
function steppedJob(kind: 'publish' | 'import', row: Row, title: string, href: string): ListedJob {
  const state = row.state as JobState;
  const steps = stepViews(row.steps as never);
  const createdAt = iso(row.createdAt);
  const updatedAt = iso(row.updatedAt);
  return { kind, id: String(row._id), title, state, outcome: null, steps, createdAt, updatedAt, durationMs: durationOf(state, createdAt, updatedAt), failure: failureOf(state, steps, row.error), href };
}

function publishJob(row: Row): ListedJob {
  return steppedJob('publish', row, `${String(row.operation)} ${String(row.packageName)} (${String(row.destination)})`, `/administration/jobs/${String(row._id)}`);
}

function importJob(row: Row): ListedJob {
  const staged = row.staged as { packageName?: string; version?: string } | undefined;
  const what = staged?.packageName ? `${staged.packageName}@${staged.version ?? '?'}` : String(row.url ?? row.source);
  return steppedJob('import', row, `${row.targetExtensionId ? 'update' : 'import'} ${what} (${String(row.source)})`, `/administration/imports/${String(row._id)}`);
}

function syncEvent(row: Row): ListedJob {
  const outcome = String(row.outcome);
  const state: JobState = SYNC_OUTCOMES.failed!.includes(outcome) ? 'failed' : 'succeeded';
  const versions = row.toVersion ? ` ${row.fromVersion ? `${String(row.fromVersion)} → ` : ''}${String(row.toVersion)}` : '';
  return {
    kind: 'sync',
    id: String(row._id),
    title: `${String(row.trigger)} sync: ${outcome}${versions}`,
    state,
    outcome,
    steps: [],
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    durationMs: null,
    failure: state === 'failed' ? { step: null, message: typeof row.reason === 'string' ? row.reason : outcome } : null,
    href: `/administration/extensions/${String(row.extensionId)}`,
  };
}

export function createJobList(models: Pick<Models, 'PublishJob' | 'ImportJob' | 'ImportSyncEvent'>) {
  /** `before`: the `nextBefore` of the previous page (the last id shown). */
  return async function listJobs(options: JobFilter & { limit?: number; before?: string | null } = {}): Promise<{ items: ListedJob[]; nextBefore: string | null }> {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
    const below = options.before && Types.ObjectId.isValid(options.before) ? { _id: { $lt: new Types.ObjectId(options.before) } } : {};
    const { state } = options;
    const wanted = (kind: JobKind) => !options.kind || options.kind === kind;
    const page = <T>(query: { sort(s: Record<string, 1 | -1>): { limit(n: number): { lean(): Promise<T> } } }) => query.sort({ _id: -1 }).limit(limit + 1).lean();
    const syncOutcomes = state ? SYNC_OUTCOMES[state] : undefined;
    const [publishRows, importRows, syncRows] = await Promise.all([
      // A publish job is never awaiting confirmation nor discarded: those filters read nothing there.
      wanted('publish') && (!state || ['running', 'succeeded', 'failed'].includes(state)) ? page<Row[]>(models.PublishJob.find({ ...below, ...(state ? { state } : {}) } as never)) : [],
      wanted('import') ? page<Row[]>(models.ImportJob.find({ ...below, ...(state ? { state } : {}) } as never)) : [],
      wanted('sync') && (!state || syncOutcomes) ? page<Row[]>(models.ImportSyncEvent.find({ ...below, ...(syncOutcomes ? { outcome: { $in: syncOutcomes } } : {}) } as never)) : [],
    ]);
    const merged = [...publishRows.map(publishJob), ...importRows.map(importJob), ...syncRows.map(syncEvent)].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const items = merged.slice(0, limit);
    return { items, nextBefore: merged.length > limit ? items.at(-1)!.id : null };
  };
}

export type ListJobs = ReturnType<typeof createJobList>;
