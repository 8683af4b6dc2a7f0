import { z } from 'zod';
import { errorResponse, json, readBodyLimited } from '../http/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import type { AgentCard } from '../a2a/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import type { RunExecutor, StepRecorder } from '../runs/index.ts';
import { bridgeTokenRefusal } from './bridge-token.ts';
import { PACKAGE_NAME } from '../agents/index.ts';

const MAX_BODY = 512 * 1024;
/** `stepKey`: the calling step's key, so a call the runtime makes again after a crash is recognised as the same call. */
const agentCallSchema = z.object({ input: z.string().max(200_000), stepKey: z.string().min(1).max(200).optional() });
const llmCallSchema = z.object({
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(200_000) })).min(1).max(200),
});

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
  const sized = (body: string) => {
    if (Buffer.byteLength(body) > MAX_BODY) throw new DomainError('PAYLOAD_TOO_LARGE', `The body is over ${MAX_BODY} bytes`);
    return body;
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
