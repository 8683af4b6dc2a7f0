import { DomainError } from '../errors/index.ts';
import type { LlmProvider, LlmToolDefinition, ScriptedEdit } from '../llm/index.ts';

/** One field of the typed diff a content editor returns: what the CMS stored before and after. */
export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export interface ContentEditorResult {
  changes: FieldChange[];
  /** Both ids, always strings, whichever CMS was edited (the widget's `changes` event needs both). */
  postId: string;
  nodeId: string;
  noChanges: boolean;
  summary: string;
}

/** The tool through which the LLM proposes edits to the given text fields. */
export function setFieldsTool(fields: readonly string[]): LlmToolDefinition {
  return {
    name: 'set_fields',
    description: 'Change fields of the draft. Each edit sets a field, replaces text in it, or appends to it.',
    parameters: {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              op: { type: 'string', enum: ['set', 'replace', 'append'] },
              field: { type: 'string', enum: [...fields] },
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
}

/** Asks the LLM for edits and applies them to the current values; returns only fields that change. */
export async function proposeEdits(
  llm: LlmProvider,
  input: { system: string; document: string; task: string; current: Record<string, string>; fields: readonly string[] },
): Promise<{ updates: Record<string, string>; summary: string }> {
  const tool = setFieldsTool(input.fields);
  const result = await llm.complete({
    messages: [
      { role: 'system', content: input.system },
      { role: 'user', content: `${input.document}\n\nTask:\n${input.task}` },
    ],
    tools: [tool],
  });
  const edits = result.toolCalls.filter((c) => c.toolName === tool.name).flatMap((c) => (c.input as { edits?: ScriptedEdit[] }).edits ?? []);
  const next: Record<string, string> = {};
  for (const edit of edits) {
    if (!input.fields.includes(edit.field)) throw new DomainError('VALIDATION_FAILED', `the content editor cannot change "${edit.field}"`);
    const current = next[edit.field] ?? input.current[edit.field] ?? '';
    const value = edit.value ?? '';
    next[edit.field] = edit.op === 'set' ? value : edit.op === 'append' ? current + value : current.split(edit.find ?? '').join(value);
  }
  const updates = Object.fromEntries(Object.entries(next).filter(([field, value]) => value !== input.current[field]));
  return { updates, summary: result.text };
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
