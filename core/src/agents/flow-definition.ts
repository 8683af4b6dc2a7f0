import { z } from 'zod';
import { CONDITION } from '../step-template/index.ts';
import { parseToolRef } from './tool-refs.ts';

const stepId = z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'must be a lowercase identifier');
/**
 * Runs the step only when an earlier step's output (or a field of it) is truthy; `!` runs it only
 * when it is falsy. A step skipped this way is recorded with a null output.
 */
const when = z.string().regex(CONDITION, 'must be steps.<id>.output or steps.<id>.output.<field>, optionally with a leading !').optional();

/** Invoke another agent, local or remote, by package name within a semver range. */
export const callStepSchema = z.object({
  kind: z.literal('call'),
  id: stepId,
  when,
  agent: z.string().min(1),
  /** Defaults to the range declared in the manifest's `service.agentDependencies`. */
  range: z.string().optional(),
  /** Template for the sub-agent's input; `{{input}}` and `{{steps.<id>.output}}` are substituted. */
  input: z.string().max(10_000).default('{{input}}'),
});

/** Pause for a human: the screen's JSON Schema describes the form the human fills in. */
export const askStepSchema = z.object({
  kind: z.literal('ask'),
  id: stepId,
  when,
  screen: z.object({
    id: stepId,
    title: z.string().min(1).max(200),
    schema: z.record(z.string(), z.unknown()),
  }),
});

const toolRef = z.string().max(200).refine((ref) => parseToolRef(ref) !== null, 'must name an agent (@vendor/slug), a connector primitive (cms_b_post_get) or an MCP tool (mcp:<server>/<tool>)');

/**
 * A tool the agent may use, with when a human approves its calls: `auto` (the default) asks
 * before a call that changes something (the tool is not read-only, or destructive), `always`
 * before every call, `never` not at all. A call that would change a live post is asked about
 * whatever the flow says.
 */
export const toolEntrySchema = z.union([toolRef, z.object({ tool: toolRef, approval: z.enum(['auto', 'always', 'never']).default('auto') }).strict()]);

/**
 * An LLM step: the agent's instructions and the prompt template, with tools (the model may call
 * them, see their results and call again, up to the flow's `maxToolRounds`). `tools` names the
 * ones this step offers, among the flow's `skills` and `tools` (all of them when left out; none
 * with `[]`). With `output`, a JSON Schema, the step answers a value of that shape, which `when`
 * conditions and templates read field by field.
 */
export const llmStepSchema = z.object({
  kind: z.literal('llm'),
  id: stepId,
  when,
  prompt: z.string().min(1).max(20_000),
  tools: z.array(toolRef).max(64).optional(),
  output: z.record(z.string(), z.unknown()).optional(),
});

/** Ends the flow: the rendered template is the run's answer, and no later step runs. */
export const replyStepSchema = z.object({
  kind: z.literal('reply'),
  id: stepId,
  when,
  text: z.string().min(1).max(20_000),
});

export const stepSchema = z.discriminatedUnion('kind', [callStepSchema, askStepSchema, llmStepSchema, replyStepSchema]);

export const flowDefinitionSchema = z.object({
  id: stepId,
  name: z.string().min(1).max(120),
  description: z.string().min(1).max(2_000),
  tags: z.array(z.string().min(1).max(50)).max(20).default([]),
  inputModes: z.array(z.string().min(1)).min(1).default(['text/plain']),
  outputModes: z.array(z.string().min(1)).min(1).default(['text/plain']),
  type: z.enum(['leaf', 'flow']),
  instructions: z.string().min(1).max(50_000),
  /** Skill and agent packages (`@scope/slug`) the agent may use as tools. */
  skills: z.array(z.string()).default([]),
  /** More tools: agents, connector primitives, tools of registered MCP servers, each with its approval rule. */
  tools: z.array(toolEntrySchema).max(64).default([]),
  /** The most LLM rounds an `llm` step may call tools in; the model then answers without them. */
  maxToolRounds: z.number().int().min(1).max(50).default(8),
  steps: z.array(stepSchema).default([]),
});

export type FlowDefinition = z.infer<typeof flowDefinitionSchema>;
export type ToolEntry = z.infer<typeof toolEntrySchema>;
export type LlmStep = z.infer<typeof llmStepSchema>;
export type FlowStep = z.infer<typeof stepSchema>;
export type CallStep = z.infer<typeof callStepSchema>;
export type AskStep = z.infer<typeof askStepSchema>;
