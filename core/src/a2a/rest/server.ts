import type { AgentAccessActor } from '../../auth/index.ts';
import { wantsToolDetails } from '../tool-details.ts';
import { DomainError, toDomainError } from '../../errors/index.ts';
import { assertJsonDepth, bearerToken, readBodyLimited } from '../../http/index.ts';
import type { RunView } from '../../runs/index.ts';
import { authenticateBearer } from '../authenticate.ts';
import { checkVersion10, requestedVersion } from '../versions.ts';
import { createA2aOperations, type A2aOperations } from '../operations.ts';
import { taskIdV1Schema, taskToV1 } from '../protocol-v1.ts';
import { extendedCardV1, listTasksV1, params, pushConfigV1, sendInputV1, sendStreamingV1, subscribeV1 } from '../server-v1.ts';
import { MAX_A2A_BODY_BYTES, type A2aServerDeps } from '../server.ts';
import { sseResponse } from '../sse.ts';
import { restErrorResponse, restJson } from './errors.ts';
import { withJsonNames } from './proto-names.ts';
import { restOperationOf, type RestOperation } from './routes.ts';

/** One event of the log as an SSE frame of this binding: `id: <seq>` and the bare StreamResponse (no JSON-RPC envelope). */
const frame = (seq: number, payload: unknown) => `id: ${seq}\ndata: ${JSON.stringify(payload)}\n\n`;
/** The current Task that opens a subscription: not an event of the log, so it has no id. */
const snapshotFrame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/** The A2A base a request came in under: `/api/a2a` (two segments) or `/a2a/<vendor>/<slug>` (three); the rest is the binding's path. */
function restPathOf(request: Request, agent: string | null): string {
  const segments = new URL(request.url).pathname.split('/');
  return `/${segments.slice(agent ? 4 : 3).join('/')}`;
}

/** `A2A-Version` (header, or the query parameter the spec allows): this binding speaks 1.0. */
const checkVersion = (request: Request) => checkVersion10(requestedVersion(request), 'HTTP+JSON', ' (0.3 clients use JSON-RPC at this same URL)');

/** The request's JSON body, an object, with proto field names read as JSON names; an empty body reads as `{}` (a cancel without metadata). */
async function bodyOf(request: Request): Promise<Record<string, unknown>> {
  const text = await readBodyLimited(request, MAX_A2A_BODY_BYTES);
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('PARSE_ERROR', 'The body is not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new DomainError('BAD_REQUEST', 'The body must be a JSON object');
  // Depth first: renaming walks the body, and a hostile one nested a hundred thousand levels would overflow it.
  assertJsonDepth(value, 'Invalid request body');
  return withJsonNames(value) as Record<string, unknown>;
}

/** The query parameters that stand for numbers and booleans (the rest are strings, `contextId=123` included). */
const NUMBER_PARAMS = new Set(['pageSize', 'historyLength', 'page_size', 'history_length']);
const BOOLEAN_PARAMS = new Set(['includeArtifacts', 'include_artifacts']);

/** Query parameters as the JSON fields they stand for (§11.5): decimal strings as numbers, `true`/`false` as booleans. */
function queryOf(request: Request): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URL(request.url).searchParams) {
    if (key === 'A2A-Version') continue;
    if (NUMBER_PARAMS.has(key) && /^-?\d+$/.test(value)) out[key] = Number(value);
    else if (BOOLEAN_PARAMS.has(key) && (value === 'true' || value === 'false')) out[key] = value === 'true';
    else out[key] = value;
  }
  return out;
}

/**
 * The A2A 1.0 HTTP+JSON (REST) binding at `/api/a2a/...` and `/a2a/<vendor>/<slug>/...`: the
 * operations of the JSON-RPC binding (one operations module, one run model) with the paths,
 * HTTP statuses and google.rpc.Status error bodies of spec §11. 404 while SERVICE_A2A_HTTP_ENABLED
 * is off; the bearer JWT is checked before any body is read.
 */
export function createA2aRestHandler(deps: A2aServerDeps) {
  const ops = createA2aOperations(deps);

  return async (request: Request, route: { agent?: string } = {}): Promise<Response> => {
    if (!(await deps.flags()).a2aHttpEnabled) return new Response('Not Found', { status: 404 });
    const agent = route.agent ?? null;
    const resolved = restOperationOf(restPathOf(request, agent));
    if (!resolved) return restErrorResponse(new DomainError('METHOD_NOT_FOUND', 'No operation of the A2A HTTP+JSON binding at this path'));
    if (!resolved.allow.includes(request.method)) {
      return restJson({ error: { code: 405, status: 'UNIMPLEMENTED', message: `Use ${resolved.allow.join(' or ')}`, details: [] } }, { status: 405, headers: { allow: resolved.allow.join(', ') } });
    }
    let actor: AgentAccessActor;
    try {
      actor = await authenticateBearer(deps.verifyToken, bearerToken(request));
    } catch (error) {
      const domain = toDomainError(error);
      return restErrorResponse(domain, undefined, domain.code === 'UNAUTHENTICATED' ? { 'www-authenticate': 'Bearer error="invalid_token"' } : {});
    }
    if (agent && !(await deps.card()).skills.some((skill) => skill.id === agent)) {
      return restJson({ error: { code: 404, status: 'NOT_FOUND', message: `No agent ${agent} on this host`, details: [] } }, { status: 404 });
    }
    try {
      checkVersion(request);
      const input = request.method === 'POST' ? await bodyOf(request) : queryOf(request);
      if (resolved.operation === 'push') return restJson(await pushConfigV1(ops, pushMethodOf(request.method, resolved.config), { ...input, taskId: resolved.task, ...(resolved.config !== undefined ? { id: resolved.config } : {}) }, actor, agent));
      return await perform(ops, request, resolved.operation, resolved.task ?? null, input, actor, agent);
    } catch (error) {
      return restErrorResponse(error, deps.logger);
    }
  };
}

/** A task of this caller (and, on a per-agent endpoint, of that agent); anything else is not found. */
function taskOf(ops: A2aOperations, actor: AgentAccessActor, id: string, permission: 'read' | 'execute', agent: string | null): Promise<RunView> {
  return ops.visibleRun(actor, id, permission, agent);
}

/** The 1.0 push config method a request under `/tasks/{id}/pushNotificationConfigs` stands for (spec §11.3). */
function pushMethodOf(method: string, config: string | undefined): string {
  if (config === undefined) return method === 'POST' ? 'CreateTaskPushNotificationConfig' : 'ListTaskPushNotificationConfigs';
  return method === 'DELETE' ? 'DeleteTaskPushNotificationConfig' : 'GetTaskPushNotificationConfig';
}

async function perform(ops: A2aOperations, request: Request, operation: RestOperation, taskId: string | null, input: Record<string, unknown>, actor: AgentAccessActor, agent: string | null): Promise<Response> {
  const idempotencyKey = request.headers.get('idempotency-key')?.slice(0, 200) || null;
  const lastEventId = Number.parseInt(request.headers.get('last-event-id') ?? '', 10);
  const resumeFrom = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : null;
  const toolDetails = wantsToolDetails(request.headers.get('a2a-extensions'));
  switch (operation) {
    case 'send': {
      const { internal, returnImmediately, historyLength } = sendInputV1(input);
      const run = await ops.sendAndWait(actor, internal, idempotencyKey, agent, { returnImmediately, signal: request.signal });
      return restJson({ task: taskToV1(run, { historyLength }) });
    }
    case 'stream': {
      const { responses } = await sendStreamingV1(ops, actor, input, { idempotencyKey, agent, resumeFrom, toolDetails });
      return sseResponse(async function* (signal) {
        for await (const { seq, response } of responses(signal)) yield frame(seq, response);
      }, request.signal);
    }
    case 'get': {
      const p = params(taskIdV1Schema, { ...input, id: taskId });
      return restJson(taskToV1(await taskOf(ops, actor, p.id, 'read', agent), { historyLength: p.historyLength }));
    }
    case 'cancel': {
      const run = await taskOf(ops, actor, params(taskIdV1Schema, { ...input, id: taskId }).id, 'execute', agent);
      return restJson(taskToV1(await ops.cancel(run.id)));
    }
    case 'subscribe': {
      const { snapshot, responses } = await subscribeV1(ops, actor, params(taskIdV1Schema, { id: taskId }).id, { agent, resumeFrom, toolDetails });
      return sseResponse(async function* (signal) {
        yield snapshotFrame(snapshot);
        for await (const { seq, response } of responses(signal)) yield frame(seq, response);
      }, request.signal);
    }
    case 'list':
      return restJson(await listTasksV1(ops, actor, input, agent));
    case 'card':
      return restJson(await extendedCardV1(ops, actor, agent));
    case 'push':
      throw new DomainError('METHOD_NOT_FOUND', 'Push notification configs are served before this point');
  }
}
