import type { AgentSource } from '../agents/index.ts';
import { proposeEdits, type LlmMessage, type LlmProvider } from '../llm/index.ts';

/** What a chat may set on a drafted agent; the two package files are rendered from these. */
export const DRAFT_FIELDS = ['slug', 'name', 'description', 'tags', 'instructions', 'prompt', 'license'] as const;
export type DraftField = (typeof DRAFT_FIELDS)[number];
export type DraftFields = Record<DraftField, string>;

export const EMPTY_DRAFT: DraftFields = { slug: '', name: '', description: '', tags: '', instructions: '', prompt: '{{input}}', license: '' };

const SYSTEM = (vendorScope: string) =>
  [
    `You draft an agent package for the agent platform of the scope ${vendorScope}.`,
    'An agent is a leaf agent: one LLM turn with its instructions and a prompt template in which {{input}} is the text it is given.',
    'Change the draft with the set_fields tool, only the fields the admin asked for or that are still empty:',
    '- slug: lowercase letters, digits and dashes (the package becomes ' + `${vendorScope}/<slug>)`,
    '- name, description: shown in the marketplace',
    '- tags: comma-separated',
    '- instructions: the system instructions of the agent',
    '- prompt: the prompt template, containing {{input}}',
    '- license: an SPDX id such as MIT, only if the admin names one',
    'Then say in one or two sentences what you changed.',
  ].join('\n');

/**
 * One chat turn on a draft: the model proposes field edits through the same tool the content
 * editors use, and the draft's files are rendered from the result.
 */
export async function draftTurn(llm: LlmProvider, input: { vendorScope: string; fields: DraftFields; messages: LlmMessage[] }): Promise<{ fields: DraftFields; reply: string }> {
  const lastUser = input.messages.map((m) => m.role).lastIndexOf('user');
  const last = input.messages[lastUser]?.content ?? '';
  // Earlier turns are context, quoted; only the newest request is the task.
  const transcript = input.messages.slice(0, Math.max(lastUser, 0)).map((m) => `> ${m.role === 'user' ? 'Admin' : 'Assistant'}: ${m.content.replace(/\n/g, '\n>   ')}`).join('\n');
  const { updates, summary } = await proposeEdits(llm, {
    system: SYSTEM(input.vendorScope),
    document: `Current draft:\n${DRAFT_FIELDS.map((f) => `${f}: ${input.fields[f] || '(empty)'}`).join('\n')}${transcript ? `\n\nConversation so far:\n${transcript}` : ''}`,
    task: last,
    current: input.fields,
    fields: DRAFT_FIELDS,
  });
  return { fields: { ...input.fields, ...updates }, reply: summary };
}

/** The package.json and flow.json a draft stands for; review judges them like any package. */
export function draftSource(fields: DraftFields, vendorScope: string): AgentSource {
  const slug = fields.slug.trim();
  const description = fields.description.trim();
  const license = fields.license.trim();
  return {
    manifest: {
      name: `${vendorScope}/${slug}`,
      version: '1.0.0',
      ...(description ? { description: description.slice(0, 500) } : {}),
      ...(license ? { license } : {}),
      service: { kind: 'agent', flow: 'flow.json', agentDependencies: {} },
    },
    flow: {
      id: slug,
      name: fields.name.trim(),
      description,
      tags: fields.tags.split(',').map((t) => t.trim()).filter(Boolean),
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      type: 'leaf',
      instructions: fields.instructions.trim(),
      skills: [],
      steps: [{ kind: 'llm', id: 'answer', prompt: fields.prompt.trim() || '{{input}}' }],
    },
  };
}
