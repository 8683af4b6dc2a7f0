import { DomainError } from '../errors/index.ts';
import type { LlmProvider, LlmToolDefinition } from './provider.ts';
import type { ScriptedEdit } from './scripted-provider.ts';

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
    if (!input.fields.includes(edit.field)) throw new DomainError('VALIDATION_FAILED', `the model asked to change "${edit.field}", which is not an editable field`);
    const current = next[edit.field] ?? input.current[edit.field] ?? '';
    const value = edit.value ?? '';
    next[edit.field] = edit.op === 'set' ? value : edit.op === 'append' ? current + value : current.split(edit.find ?? '').join(value);
  }
  const updates = Object.fromEntries(Object.entries(next).filter(([field, value]) => value !== input.current[field]));
  return { updates, summary: result.text };
}

