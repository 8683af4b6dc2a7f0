import type { AgentAccessActor } from '../../auth/index.ts';
import type { LlmProvider } from '../../llm/index.ts';
import { proposeEdits } from '../../llm/index.ts';
import { diffFields, editStep, type ContentEditorResult } from '../content-edit.ts';
import type { CmsBPost } from './client.ts';
import type { SiteEvents } from './index.ts';
import { cmsBClientFor, type SiteAccess } from './primitives.ts';
import { parseOrThrow } from '../../errors/index.ts';
import { EDITABLE_FIELDS, postStatus } from './schemas.ts';

const fieldsOf = (post: CmsBPost) => ({ title: post.title, content: post.content, excerpt: post.excerpt, status: post.status });
/** The diff's fields: the editable ones, and `status` (a live post is demoted before it is edited, and Undo puts it back). */
const DIFF_FIELDS = [...EDITABLE_FIELDS, 'status'] as const;

/**
 * The CMS-B content editor: read the post (edit context), demote it to draft when it is not one
 * (CMS-B has no separate draft revision), let the LLM choose edits, write them, and return the
 * diff of what WordPress stored (read back, not what was intended).
 */
export function createCmsBContentEditor(deps: SiteAccess & { llm: () => LlmProvider; events?: SiteEvents }) {
  async function run(_actor: AgentAccessActor, input: { instanceId: string; id: number; task: string }): Promise<ContentEditorResult> {
    const client = await editStep('connect', () => cmsBClientFor(deps, input.instanceId));
    const before = await editStep('read post', () => client.getPost(input.id));
    const { updates, summary } = await editStep('llm turn', () =>
      proposeEdits(deps.llm(), {
        system: 'You edit one WordPress post. Change fields only through the set_fields tool. Fields: title, content, excerpt.',
        document: `Post ${before.id}\nTitle: ${before.title}\nExcerpt: ${before.excerpt}\nContent:\n${before.content}`,
        task: input.task,
        current: fieldsOf(before),
        fields: EDITABLE_FIELDS,
      }),
    );
    const id = String(before.id);
    // Nothing to write leaves a live post live.
    if (Object.keys(updates).length === 0) return { changes: [], postId: id, nodeId: id, noChanges: true, summary };
    // The contract's demote-then-edit: a post that is not a draft becomes one before the edit is written.
    if (before.status !== 'draft') await editStep('demote to draft', () => client.updatePost(input.id, { status: 'draft' }));
    await editStep('write draft', () => client.updatePost(input.id, updates));
    const after = await editStep('read back', () => client.getPost(input.id));
    const changes = diffFields(fieldsOf(before), fieldsOf(after), DIFF_FIELDS);
    if (changes.length) deps.events?.(input.instanceId, 'content.draft_updated', { postId: before.id, fields: changes.map((c) => c.field), status: after.status });
    return { changes, postId: id, nodeId: id, noChanges: changes.length === 0, summary };
  }
  /**
   * Undo: puts the given values back, the status among them (a post the edit demoted is published
   * again). Without a status to restore, a post that is not a draft is demoted first, as for an edit.
   */
  async function restore(_actor: AgentAccessActor, input: { instanceId: string; id: number; values: Record<string, string> }): Promise<ContentEditorResult> {
    const client = await editStep('connect', () => cmsBClientFor(deps, input.instanceId));
    const before = await editStep('read post', () => client.getPost(input.id));
    const values = Object.fromEntries(Object.entries(input.values).filter(([field]) => (EDITABLE_FIELDS as readonly string[]).includes(field)));
    const restoredStatus = input.values.status === undefined ? undefined : parseOrThrow(postStatus, input.values.status, 'Invalid status to restore');
    const status = restoredStatus ?? (before.status !== 'draft' ? 'draft' : undefined);
    await editStep('write draft', () => client.updatePost(input.id, { ...values, ...(status ? { status } : {}) }));
    const after = await editStep('read back', () => client.getPost(input.id));
    const changes = diffFields(fieldsOf(before), fieldsOf(after), DIFF_FIELDS);
    const id = String(before.id);
    if (changes.length) deps.events?.(input.instanceId, 'content.draft_restored', { postId: before.id, fields: changes.map((c) => c.field), status: after.status });
    return { changes, postId: id, nodeId: id, noChanges: changes.length === 0, summary: 'Restored.' };
  }

  return { run, restore };
}

export type ContentEditor = ReturnType<typeof createCmsBContentEditor>;
