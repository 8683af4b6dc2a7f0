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
