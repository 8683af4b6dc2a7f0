import { authenticateBearer } from './authenticate.ts';
import { z } from 'zod';
import { mayAccessRun, type AgentAccessActor } from '../auth/index.ts';
import type { FeatureFlags } from '../config/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import { assertJsonDepth, bearerToken, errorResponse, json, readBodyLimited } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import type { Answer, RunExecutor, RunStore } from '../runs/index.ts';

/**
 * The AG-UI resume body: the run (A2A task id) and the interrupt being answered. `interruptId`
 * is the HITL screen id from the INTERRUPT event; `payload` is validated against its schema.
 */
const resumeEntry = z.object({
  interruptId: z.string().min(1).max(200),
  status: z.enum(['resolved', 'cancelled']).default('resolved'),
  payload: z.record(z.string(), z.unknown()).default({}),
});
/** AG-UI's RunAgentInput resume: one entry (or a list holding one) answering the open interrupt. */
const aguiResumeSchema = z.object({
  threadId: z.string().max(200).optional(),
  runId: z.string().min(1).max(200),
  resume: z.union([resumeEntry, z.array(resumeEntry).length(1)]).transform((r) => (Array.isArray(r) ? r[0]! : r)),
});

/** `POST /api/a2a/resume`: 404 unless SERVICE_AGUI_EXTERNAL_ENABLED=true; bearer JWT like /api/a2a. */
export function createAguiResumeHandler(deps: {
  flags: () => Promise<FeatureFlags>;
  verifyToken: (token: string) => Promise<AgentAccessActor>;
  runs: Pick<RunStore, 'get'>;
  executor: Pick<RunExecutor, 'cancel'>;
  /** Answering a paused run: the service's one way (use-cases). */
  answerPause: (actor: AgentAccessActor, runId: string, answer: Answer) => Promise<{ answerSeq: number }>;
  logger: Logger;
}) {
  return async (request: Request): Promise<Response> => {
    if (!(await deps.flags()).aguiExternalEnabled) return new Response('Not Found', { status: 404 });
    if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use POST' } }, { status: 405 });
    try {
      const actor = await authenticateBearer(deps.verifyToken, bearerToken(request));
      let body: unknown;
      try {
        body = JSON.parse(await readBodyLimited(request, 256 * 1024));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw new DomainError('BAD_REQUEST', 'The body must be JSON');
      }
      assertJsonDepth(body, 'Invalid AG-UI resume');
      const resumeInput = parseOrThrow(aguiResumeSchema, body, 'Invalid AG-UI resume');
      const run = await deps.runs.get(resumeInput.runId);
      if (!run || !mayAccessRun(actor, run, 'execute')) throw new DomainError('NOT_FOUND', 'Task not found');
      const entry = resumeInput.resume;
      if (entry.status === 'cancelled') await deps.executor.cancel(run.id);
      else await deps.answerPause(actor, run.id, { screenId: entry.interruptId, values: entry.payload });
      return json({ runId: run.id, state: (await deps.runs.get(run.id))!.state }, { status: 202 });
    } catch (error) {
      return errorResponse(error, deps.logger);
    }
  };
}
