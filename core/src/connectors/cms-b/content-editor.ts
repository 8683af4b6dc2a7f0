import type { AgentAccessActor } from '../../auth/index.ts';
import type { LlmProvider } from '../../llm/index.ts';
import { proposeEdits } from '../../llm/index.ts';
import { changedSinceError, diffFields, editStep, fieldsChangedSince, valuesToRestore, type ContentEditorResult, type RecordedChange, type WidgetEditResult } from '../content-edit.ts';
import type { CmsBPost } from './client.ts';
import { EDITABLE_FIELDS } from './schemas.ts';
import { cmsBClientFor, type SiteAccess, type SiteEvents } from './site.ts';

const fieldsOf = (post: CmsBPost) => ({ title: post.title, content: post.content, excerpt: post.excerpt, status: post.status });
/** The diff's fields: the editable ones, and `status` (a live post is demoted before it is edited, and Undo puts it back). */
const DIFF_FIELDS = [...EDITABLE_FIELDS, 'status'] as const;

/**
 * The CMS-B content editor: read the post (edit context), demote it to draft when it is not one
 * (CMS-B has no separate draft revision), let the LLM choose edits, write them, and return the
 * diff of what WordPress stored (read back, not what was intended).
 */
export function createCmsBContentEditor(deps: SiteAccess & { llm: () => LlmProvider; events?: SiteEvents }) {
  async function edit(input: { instanceId: string; id: number; task: string }, idempotencyKey?: string): Promise<WidgetEditResult> {
    const client = await editStep('connect', () => cmsBClientFor(deps, input.instanceId, idempotencyKey));
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
    if (Object.keys(updates).length === 0) return { changes: [], postId: id, nodeId: id, noChanges: true, summary, state: { status: before.status } };
    // The contract's demote-then-edit: a post that is not a draft becomes one before the edit is written.
    if (before.status !== 'draft') await editStep('demote to draft', () => client.updatePost(input.id, { status: 'draft' }));
    await editStep('write draft', () => client.updatePost(input.id, updates));
    const after = await editStep('read back', () => client.getPost(input.id));
    const changes = diffFields(fieldsOf(before), fieldsOf(after), DIFF_FIELDS);
    if (changes.length) deps.events?.(input.instanceId, 'content.draft_updated', { postId: before.id, fields: changes.map((c) => c.field), status: after.status });
    return { changes, postId: id, nodeId: id, noChanges: changes.length === 0, summary, state: { status: after.status } };
  }

  /** `idempotencyKey`: an agent's tool call's, keying the run's writes (its demotion, its edit). */
  async function run(_actor: AgentAccessActor, input: { instanceId: string; id: number; task: string }, idempotencyKey?: string): Promise<ContentEditorResult> {
    const { state: _state, ...result } = await edit(input, idempotencyKey);
    return result;
  }

  /**
   * The widget's Undo of one recorded edit: only when the post still holds what the edit left
   * (each field's `after`, and the status after the edit) are the recorded `before` values, the
   * status among them, written back; otherwise CONFLICT and nothing is written. WordPress has no
   * conditional write, so a change made between this read and the write is not seen.
   */
  async function undo(_actor: AgentAccessActor, input: RecordedChange): Promise<ContentEditorResult> {
    const id = Number(input.id);
    const client = await editStep('connect', () => cmsBClientFor(deps, input.instanceId));
    const current = await editStep('read post', () => client.getPost(id));
    const now = fieldsOf(current);
    const changed = fieldsChangedSince(now, input.fields.filter((change) => change.field !== 'status'));
    if (current.status !== input.state.status) changed.push(`status is now "${current.status}"`);
    if (changed.length) throw changedSinceError('post', changed);
    await editStep('write', () => client.updatePost(id, valuesToRestore(input.fields, DIFF_FIELDS)));
    const after = await editStep('read back', () => client.getPost(id));
    const changes = diffFields(now, fieldsOf(after), DIFF_FIELDS);
    const postId = String(current.id);
    if (changes.length) deps.events?.(input.instanceId, 'content.draft_restored', { postId: current.id, fields: changes.map((c) => c.field), status: after.status });
    return { changes, postId, nodeId: postId, noChanges: changes.length === 0, summary: 'Undone.' };
  }

  return { run, edit, undo };
}

export type ContentEditor = ReturnType<typeof createCmsBContentEditor>;
