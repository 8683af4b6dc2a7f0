import { z } from 'zod';
import { errorResponse, json, readBodyLimited } from '../http/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import type { AgentCard } from '../a2a/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import type { RunExecutor } from '../runs/index.ts';
import { bridgeTokenRefusal } from './bridge-token.ts';

const MAX_BODY = 512 * 1024;
const agentCallSchema = z.object({ input: z.string().max(200_000) });
const llmCallSchema = z.object({
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().max(200_000) })).min(1).max(200),
});

async function parse<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
  let value: unknown;
  try {
    value = JSON.parse(await readBodyLimited(request, MAX_BODY));
  } catch (error) {
    if (error instanceof DomainError) throw error;
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
 * `GET/POST /api/a2a/agents/<vendor>/<slug>`: the runtime's way to reach an agent. GET answers
 * the agent's AgentCard skill; POST `{ input }` runs it and answers `{ output }`.
 */
export function createAgentBridgeHandler(deps: BridgeDeps) {
  return async (request: Request, params: { vendor: string; slug: string }): Promise<Response> => {
    const refusal = bridgeTokenRefusal(request, deps.bridgeToken());
    if (refusal) return refusal;
    try {
      const agent = `@${params.vendor}/${params.slug}`;
      const skill = (await deps.card()).skills.find((s) => s.id === agent);
      if (!skill) throw new DomainError('NOT_FOUND', `No agent ${agent} on this host`);
      if (request.method === 'GET') return json(skill);
      if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use GET or POST' } }, { status: 405 });
      const { input } = await parse(request, agentCallSchema);
      return json({ agent, output: await deps.executor.callAgent(agent, input, request.signal) });
    } catch (error) {
      return errorResponse(error, deps.logger);
    }
  };
}

/** `POST /api/llm-bridge`: an LLM turn with the host's provider and credentials. */
export function createLlmBridgeHandler(deps: BridgeDeps) {
  return async (request: Request): Promise<Response> => {
    const refusal = bridgeTokenRefusal(request, deps.bridgeToken());
    if (refusal) return refusal;
    try {
      if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use POST' } }, { status: 405 });
      const turn = await parse(request, llmCallSchema);
      return json(await deps.llm.complete(turn, request.signal));
    } catch (error) {
      return errorResponse(error, deps.logger);
    }
  };
}
