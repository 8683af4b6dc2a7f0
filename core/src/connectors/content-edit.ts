import { z } from 'zod';
import { DomainError } from '../errors/index.ts';

/** One field of the typed diff a content editor returns: what the CMS stored before and after. */
export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

/** What `<connector>_content_editor_run` answers (and the widget's `changes` event carries). */
export const contentEditorResultOutput = z.object({
  changes: z.array(z.object({ field: z.string(), before: z.string(), after: z.string() })),
  postId: z.string(),
  nodeId: z.string(),
  noChanges: z.boolean(),
  summary: z.string(),
});

export interface ContentEditorResult {
  changes: FieldChange[];
  /** Both ids, always strings, whichever CMS was edited (the widget's `changes` event needs both). */
  postId: string;
  nodeId: string;
  noChanges: boolean;
  summary: string;
}

/** The diff of what the CMS stored, field by field, from two reads. */
export function diffFields(before: Record<string, string>, after: Record<string, string>, fields: readonly string[]): FieldChange[] {
  return fields.filter((field) => (after[field] ?? '') !== (before[field] ?? '')).map((field) => ({ field, before: before[field] ?? '', after: after[field] ?? '' }));
}

/** Runs one step of a content edit; a failure says which step. */
export async function editStep<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DomainError(error instanceof DomainError ? error.code : 'UPSTREAM_FAILED', `content editor failed at "${name}": ${message}`, { cause: error });
  }
}

/**
 * What an edit left the item as beyond its fields, recorded with the diff and checked again
 * before its Undo writes: CMS-B the post's status; CMS-A the status of the latest revision
 * (the assistant's draft) and the ids of that revision and of the published one.
 */
export interface ItemState {
  status: string;
  revisionId?: number | null;
  publishedRevisionId?: number | null;
}

/** A widget edit: the content editor's result, and the item's state after it. */
export type WidgetEditResult = ContentEditorResult & { state: ItemState };

/** One recorded widget edit, as its Undo gets it: the diff read back after the edit, and the state it left. */
export interface RecordedChange {
  instanceId: string;
  id: string;
  fields: FieldChange[];
  state: ItemState;
}

/** The recorded fields whose current value is no longer what the edit left (`after`). */
export function fieldsChangedSince(current: Record<string, string>, fields: readonly FieldChange[]): string[] {
  return fields.filter((change) => (current[change.field] ?? '') !== change.after).map((change) => change.field);
}

/**
 * The refusal of an Undo whose item changed since the edit: writing the old values would
 * overwrite what someone did since, so nothing is written. Names what changed, never values.
 */
export function changedSinceError(item: string, changed: readonly string[]): DomainError {
  return new DomainError('CONFLICT', `The ${item} has changed since this edit (${changed.join('; ')}): Undo was not applied, so nothing was overwritten.`, { details: changed.map((reason) => ({ path: 'item', reason })) });
}

/** The values an Undo writes: each recorded field's `before`, for the fields this connector writes only. */
export function valuesToRestore(fields: readonly FieldChange[], writable: readonly string[]): Record<string, string> {
  return Object.fromEntries(fields.filter((change) => writable.includes(change.field)).map((change) => [change.field, change.before]));
}
