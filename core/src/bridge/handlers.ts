import { z } from 'zod';
import { errorResponse, json, readBodyLimited } from '../http/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import type { AgentCard } from '../a2a/index.ts';
import type { LlmProvider, LlmTurn } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import type { RunExecutor, StepRecorder } from '../runs/index.ts';
import { bridgeTokenRefusal } from './bridge-token.ts';
import { PACKAGE_NAME } from '../agents/index.ts';

const MAX_BODY = 512 * 1024;
/** A tool step's turn carries the step's whole conversation (tool results are capped at 32 000 characters each). */
const MAX_TOOL_BODY = 16 * 1024 * 1024;
/** `stepKey`: the calling step's key, so a call the runtime makes again after a crash is recognised as the same call. */
const agentCallSchema = z.object({ input: z.string().max(200_000), stepKey: z.string().min(1).max(200).optional() });
const llmCallSchema = z.object({
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(200_000) })).min(1).max(200),
});

const toolCallSchema = z.object({ toolCallId: z.string().min(1).max(200), toolName: z.string().min(1).max(200), input: z.unknown() });
/** A turn of a tool step as the runtime builds it: its messages and the names of the tools it offers (their definitions are the host's). */
const turnSchema = z.object({
  messages: z
    .array(
      z.union([
        z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(200_000), toolCalls: z.array(toolCallSchema).max(64).optional() }),
        z.object({
          role: z.literal('tool'),
          toolCallId: z.string().min(1).max(200),
          toolName: z.string().min(1).max(200),
          result: z.union([z.object({ type: z.literal('json'), value: z.unknown() }), z.object({ type: z.literal('error'), message: z.string().max(10_000) }), z.object({ type: z.literal('denied'), reason: z.string().max(10_000).optional() })]),
        }),
      ]),
    )
    .min(1)
    .max(2_000),
  tools: z.array(z.object({ name: z.string().min(1).max(64) }).loose()).max(100).optional(),
  toolChoice: z.union([z.enum(['auto', 'none', 'required']), z.object({ tool: z.string().min(1).max(64) })]).optional(),
});
const roundCallSchema = z.object({ round: z.number().int().min(0).max(100), turn: turnSchema });
const toolCallBodySchema = z.object({ round: z.number().int().min(0).max(100), index: z.number().int().min(0).max(100), call: toolCallSchema });

function parseBody<T>(body: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new DomainError('BAD_REQUEST', 'The body must be JSON');
  }
  return parseOrThrow(schema, value, 'Invalid body');
}

export interface BridgeDeps {
  bridgeToken: () => string | undefined;
  card: () => Promise<AgentCard>;
  executor: RunExecutor;
  llm: LlmProvider;
  logger: Logger;
}

/**
 * What the agent runtime asks its host for, each with a JSON body as the bridge routes take it
 * (the same size cap and schema): the runtime process calls these over its IPC channel
 * (runtime/supervisor.ts), which only the host's own child holds, so no token is involved.
 */
export function createBridgeCalls(deps: BridgeDeps) {
  async function skillOf(vendor: string, slug: string) {
    const agent = `@${vendor}/${slug}`;
    const skill = (await deps.card()).skills.find((s) => s.id === agent);
    if (!skill) throw new DomainError('NOT_FOUND', `No agent ${agent} on this host`);
    return { agent, skill };
  }
  const sized = (body: string, max = MAX_BODY) => {
    if (Buffer.byteLength(body) > max) throw new DomainError('PAYLOAD_TOO_LARGE', `The body is over ${max} bytes`);
    return body;
  };
  const toolHostOf = (handle: string) => {
    const host = deps.executor.toolHost(handle);
    if (!host) throw new DomainError('NOT_FOUND', 'No tool step is running under that handle');
    return host;
  };
  return {
    skillOf,
    /**
     * `{ input, stepKey? }` → `{ agent, output, calls, remote? }`: the agent run to its answer, the
     * LLM calls it made and, when a peer answered, the peer's task. The agent is found as the
     * executor finds a call step's: installed here, else on a registered peer that offers it.
     */
    async agent(vendor: string, slug: string, body: string, signal?: AbortSignal) {
      const agent = `@${vendor}/${slug}`;
      if (!PACKAGE_NAME.test(agent)) throw new DomainError('VALIDATION_FAILED', `${agent} is not an agent name (@vendor/slug)`);
      const { input, stepKey } = parseBody(sized(body), agentCallSchema);
      const recorder: StepRecorder = { calls: [] };
      const output = await deps.executor.callAgent(agent, input, signal, stepKey, recorder);
      return { agent, output, calls: recorder.calls, ...(recorder.remote ? { remote: recorder.remote } : {}) };
    },
    /** `{ messages }` → the LLM turn's result. */
    async llm(body: string, signal?: AbortSignal) {
      return deps.llm.complete(parseBody(sized(body), llmCallSchema), signal);
    },
    /** A round of a tool step running in the runtime: answered by the step's host (from the log, or asked and stored). */
    async round(handle: string, body: string) {
      const { round, turn } = parseBody(sized(body, MAX_TOOL_BODY), roundCallSchema);
      return toolHostOf(handle).round(round, turn as LlmTurn);
    },
    /** A tool call of a tool step running in the runtime: answered by the step's host (from the log, or approved, made and stored). */
    async tool(handle: string, body: string) {
      const { round, index, call } = parseBody(sized(body, MAX_TOOL_BODY), toolCallBodySchema);
      return toolHostOf(handle).call(round, index, call);
    },
  };
}

export type BridgeCalls = ReturnType<typeof createBridgeCalls>;

/**
 * `GET/POST /api/a2a/agents/<vendor>/<slug>`: the runtime's way to reach an agent. GET answers
 * the agent's AgentCard skill; POST `{ input }` runs it and answers `{ output }`.
 */
export function createAgentBridgeHandler(deps: BridgeDeps) {
  const calls = createBridgeCalls(deps);
  return async (request: Request, params: { vendor: string; slug: string }): Promise<Response> => {
    const refusal = bridgeTokenRefusal(request, deps.bridgeToken());
    if (refusal) return refusal;
    try {
      const { skill } = await calls.skillOf(params.vendor, params.slug);
      if (request.method === 'GET') return json(skill);
      if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use GET or POST' } }, { status: 405 });
      const { agent, output } = await calls.agent(params.vendor, params.slug, await readBodyLimited(request, MAX_BODY), request.signal);
      return json({ agent, output });
    } catch (error) {
      return errorResponse(error, deps.logger);
    }
  };
}

/** `POST /api/llm-bridge`: an LLM turn with the host's provider and credentials. */
export function createLlmBridgeHandler(deps: BridgeDeps) {
  const calls = createBridgeCalls(deps);
  return async (request: Request): Promise<Response> => {
    const refusal = bridgeTokenRefusal(request, deps.bridgeToken());
    if (refusal) return refusal;
    try {
      if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use POST' } }, { status: 405 });
      return json(await calls.llm(await readBodyLimited(request, MAX_BODY), request.signal));
    } catch (error) {
      return errorResponse(error, deps.logger);
    }
  };
}
