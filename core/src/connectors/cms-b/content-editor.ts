import type { AgentAccessActor } from '../../auth/index.ts';
import { DomainError } from '../../errors/index.ts';
import type { LlmProvider, ScriptedEdit } from '../../llm/index.ts';
import type { ConnectorInstances } from '../instances.ts';
import type { CmsBPost } from './client.ts';
import { EDITABLE_FIELDS, type EditableField } from './schemas.ts';
import { cmsBClientFor } from './primitives.ts';

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export type ContentEditorResult = { changes: FieldChange[]; postId: string; nodeId: string; noChanges: boolean; summary: string };

const SET_FIELDS_TOOL = {
  name: 'set_fields',
  description: 'Change fields of the post draft. Each edit sets a field, replaces text in it, or appends to it.',
  parameters: {
    type: 'object',
    properties: {
      edits: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            op: { type: 'string', enum: ['set', 'replace', 'append'] },
            field: { type: 'string', enum: [...EDITABLE_FIELDS] },
            value: { type: 'string' },
            find: { type: 'string' },
          },
          required: ['op', 'field', 'value'],
        },
      },
    },
    required: ['edits'],
  },
};

function applyEdits(post: CmsBPost, edits: ScriptedEdit[]): Partial<Record<EditableField, string>> {
  const next: Partial<Record<EditableField, string>> = {};
  for (const edit of edits) {
    if (!(EDITABLE_FIELDS as readonly string[]).includes(edit.field)) throw new DomainError('VALIDATION_FAILED', `the content editor cannot change "${edit.field}"`);
    const field = edit.field as EditableField;
    const current = next[field] ?? post[field];
    const value = edit.value ?? '';
    next[field] = edit.op === 'set' ? value : edit.op === 'append' ? current + value : current.split(edit.find ?? '').join(value);
  }
  return next;
}

/**
 * The CMS-B content editor: read the post (edit context), demote it to draft if needed, let the
 * LLM choose field edits through the `set_fields` tool, write them, and return the diff of what
 * WordPress stored (read back, not what was intended). A failure names the step it happened in.
 */
export function createCmsBContentEditor(deps: { instances: ConnectorInstances; llm: () => LlmProvider }) {
  async function run(_actor: AgentAccessActor, input: { instanceId: string; id: number; task: string }): Promise<ContentEditorResult> {
    const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new DomainError(error instanceof DomainError ? error.code : 'UPSTREAM_FAILED', `content editor failed at "${name}": ${message}`, { cause: error });
      }
    };
    const client = await step('connect', () => cmsBClientFor(deps.instances, input.instanceId));
    const before = await step('read post', () => client.getPost(input.id));
    if (before.status !== 'draft') await step('demote to draft', () => client.updatePost(input.id, { status: 'draft' }));

    const result = await step('llm turn', () =>
      deps.llm().complete({
        messages: [
          { role: 'system', content: 'You edit one WordPress post. Change fields only through the set_fields tool. Fields: title, content, excerpt.' },
          { role: 'user', content: `Post ${before.id}\nTitle: ${before.title}\nExcerpt: ${before.excerpt}\nContent:\n${before.content}\n\nTask:\n${input.task}` },
        ],
        tools: [SET_FIELDS_TOOL],
      }),
    );
    const edits = result.toolCalls.filter((c) => c.toolName === SET_FIELDS_TOOL.name).flatMap((c) => ((c.input as { edits?: ScriptedEdit[] }).edits ?? []));
    const updates = applyEdits(before, edits);
    const changed = Object.fromEntries(Object.entries(updates).filter(([field, value]) => value !== before[field as EditableField]));
    const id = String(before.id);
    if (Object.keys(changed).length === 0) return { changes: [], postId: id, nodeId: id, noChanges: true, summary: result.text };

    await step('write draft', () => client.updatePost(input.id, changed));
    const after = await step('read back', () => client.getPost(input.id));
    const changes = EDITABLE_FIELDS.filter((field) => after[field] !== before[field]).map((field) => ({ field, before: before[field], after: after[field] }));
    return { changes, postId: id, nodeId: id, noChanges: changes.length === 0, summary: result.text };
  }
  return { run };
}

export type ContentEditor = ReturnType<typeof createCmsBContentEditor>;
