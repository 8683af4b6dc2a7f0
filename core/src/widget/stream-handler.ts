import { z } from 'zod';
import { summariseChanges, type AuditLog } from '../audit/index.ts';
import type { RouteActor } from '../auth/index.ts';
import type { ConnectorUnit, ContentEditorResult, StreamRegistry } from '../connectors/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import { bearerToken, json, readBodyLimited, type RateLimiter } from '../http/index.ts';
import { scriptedPhrasesHint, type LlmProvider } from '../llm/index.ts';
import type { Logger } from '../log/index.ts';
import { encodeWidgetEvent, type WidgetEvent } from './events.ts';
import type { WidgetKeys } from './widget-keys.ts';

export const MAX_WIDGET_BODY_BYTES = 256 * 1024;
export const MAX_WIDGET_TURNS = 100;
/** The longest turn the stream route accepts, in characters (UTF-16 code units, as zod counts). */
export const MAX_WIDGET_TURN_CHARS = 20_000;

/** The widget's request body: its chat history and the id of the item open in the CMS. */
const streamBodySchema = z.object({
  itemId: z.union([z.string().min(1).max(64), z.number().int().positive()]),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().min(1).max(MAX_WIDGET_TURN_CHARS) })).min(1).max(MAX_WIDGET_TURNS),
});

const SYSTEM = 'You are the editing assistant inside a CMS editor. Answer briefly. When the user asks for a change to the open item, call the edit_content tool with the change as a task.';

function cors(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

type Guarded = { unit: ConnectorUnit; instanceId: string; origin: string; historyTurns: number };

/**
 * The checks every widget request passes, in this order and before any other work: the slug
 * (404), the request's Origin against the instance's allowlist (403, without CORS headers), the
 * bearer against the instance's widget key (401), the per-key rate limit (429).
 */
async function guard(deps: WidgetDeps, request: Request, slug: string): Promise<Guarded | Response> {
  const unit = deps.streams.get(slug);
  if (!unit) return json({ error: { code: 'NOT_FOUND', message: `No agent ${slug}` } }, { status: 404 });
  const instanceId = new URL(request.url).searchParams.get('instanceId') ?? '';
  const origin = request.headers.get('origin');
  const settings = instanceId ? await deps.widgetKeys.settings(unit.name, instanceId) : null;
  if (!origin || !settings || !settings.allowedOrigins.includes(origin)) {
    return json({ error: { code: 'ORIGIN_NOT_ALLOWED', message: 'This origin may not use the assistant' } }, { status: 403 });
  }
  if (request.method === 'OPTIONS') {
    return new Response(null, { status: 204, headers: { ...cors(origin), 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'authorization, content-type', 'access-control-max-age': '600' } });
  }
  if (!(await deps.widgetKeys.verify(unit.name, instanceId, bearerToken(request)))) {
    return json({ error: { code: 'UNAUTHENTICATED', message: 'Wrong or missing widget API key' } }, { status: 401, headers: { ...cors(origin), 'www-authenticate': 'Bearer' } });
  }
  const limit = deps.rateLimiter.take(`widget:${unit.name}:${instanceId}`);
  if (!limit.allowed) return json({ error: { code: 'RATE_LIMITED', message: 'Too many requests' } }, { status: 429, headers: { ...cors(origin), 'retry-after': String(limit.retryAfterSeconds) } });
  return { unit, instanceId, origin, historyTurns: settings.historyTurns };
}

async function readBody<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
  let value: unknown;
  try {
    value = JSON.parse(await readBodyLimited(request, MAX_WIDGET_BODY_BYTES));
  } catch (error) {
    throw error instanceof DomainError ? error : new DomainError('BAD_REQUEST', 'The body must be JSON');
  }
  return parseOrThrow(schema, value, 'Invalid body');
}

/**
 * An SSE response of frozen widget events; a failure becomes `error` and ends the stream. When
 * the client goes away (the request aborts or the reader cancels) the producer's signal aborts,
 * so the LLM turn stops instead of running on for nobody, and nothing more is sent.
 */
function eventStream(origin: string, logger: Logger, requestSignal: AbortSignal, produce: (send: (event: WidgetEvent) => void, signal: AbortSignal) => Promise<void>): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const onRequestAbort = () => stop.abort();
  if (requestSignal.aborted) stop.abort();
  else requestSignal.addEventListener('abort', onRequestAbort, { once: true });
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: WidgetEvent) => {
        if (open && !stop.signal.aborted) controller.enqueue(encoder.encode(encodeWidgetEvent(event)));
      };
      try {
        await produce(send, stop.signal);
      } catch (error) {
        if (!stop.signal.aborted) {
          logger.warn('widget request failed', { error });
          send({ event: 'error', data: { message: error instanceof DomainError ? error.message : 'The assistant failed' } });
        }
      } finally {
        requestSignal.removeEventListener('abort', onRequestAbort);
        if (open) {
          open = false;
          controller.close();
        }
      }
    },
    cancel() {
      open = false;
      stop.abort();
    },
  });
  return new Response(body, { status: 200, headers: { ...cors(origin), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' } });
}

interface WidgetDeps {
  streams: StreamRegistry;
  widgetKeys: WidgetKeys;
  llm: () => LlmProvider;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Where the writes the widget causes are recorded. */
  audit: AuditLog;
}

const actorFor = (guarded: Guarded, path: string): RouteActor => ({ type: 'route', id: `widget:${guarded.unit.name}:${guarded.instanceId}`, route: path });

/**
 * Runs one write the widget causes (an edit, an Undo) and records it in the audit log, whatever
 * its outcome: a failed edit may still have written (a draft revision, a demotion to draft). The
 * row names the connector (`resourceType`) and `<instance>/<item>` (`resourceId`); its details are
 * bounded: field names and byte sizes, never the values.
 */
async function auditedWrite(
  deps: WidgetDeps,
  actor: RouteActor,
  guarded: Guarded,
  action: 'widget.edit' | 'widget.undo',
  itemId: string,
  details: Record<string, unknown>,
  write: () => Promise<ContentEditorResult>,
): Promise<ContentEditorResult> {
  const { audit } = deps;
  const row = { action, resourceType: guarded.unit.name, resourceId: `${guarded.instanceId}/${itemId}` };
  const base = { instanceId: guarded.instanceId, itemId, ...details };
  try {
    const result = await write();
    audit.record(actor, { ...row, details: { ...base, outcome: result.noChanges ? 'unchanged' : 'changed', nodeId: result.nodeId, postId: result.postId, fields: summariseChanges(result.changes) } });
    return result;
  } catch (error) {
    audit.record(actor, { ...row, details: { ...base, outcome: 'failed', error: error instanceof DomainError ? error.code : 'INTERNAL' } });
    throw error;
  }
}

/**
 * `/api/agents/<slug>/stream`: after the guard, the body (400/413) and an LLM turn whose
 * widget-chat tool runs the connector's content editor, streamed as `text`, `changes`,
 * `error`, `done`.
 */
export function createWidgetStreamHandler(deps: WidgetDeps) {
  return async (request: Request, slug: string): Promise<Response> => {
    const guarded = await guard(deps, request, slug);
    if (guarded instanceof Response) return guarded;
    const { unit, instanceId, origin } = guarded;
    let body: z.infer<typeof streamBodySchema>;
    try {
      body = await readBody(request, streamBodySchema);
    } catch (error) {
      const domain = error as DomainError;
      return json({ error: domain.toPublicJSON() }, { status: domain.httpStatus, headers: cors(origin) });
    }
    const history = body.messages.slice(-guarded.historyTurns);
    const editor = unit.primitives.find((p) => p.name === unit.widgetChatTool.primitive)!;
    return eventStream(origin, deps.logger, request.signal, async (send, signal) => {
      let edited = false;
      for await (const part of deps.llm().stream({ messages: [{ role: 'system', content: SYSTEM }, ...history], tools: [unit.widgetChatTool] }, signal)) {
        if (signal.aborted) return;
        if (part.type === 'text-delta' && part.text) send({ event: 'text', data: { content: part.text } });
        if (part.type === 'tool-call' && part.call.toolName === unit.widgetChatTool.name && !edited) {
          edited = true;
          const task = String((part.call.input as { task?: unknown }).task ?? history.at(-1)!.content);
          // The widget key unlocks this one tool only: the content editor, with its input validated.
          const input = editor.input.parse({ instanceId, id: body.itemId, task }) as { id: string | number };
          const actor = actorFor(guarded, new URL(request.url).pathname);
          const result = await auditedWrite(deps, actor, guarded, 'widget.edit', String(input.id), { taskBytes: Buffer.byteLength(task) }, () => unit.contentEditor.run(actor, input as never));
          if (result.noChanges) return send({ event: 'done', data: { fallback: true } });
          send({ event: 'changes', data: { fields: result.changes, nodeId: result.nodeId, postId: result.postId } });
        }
      }
      send({ event: 'done', data: edited ? {} : { fallback: true } });
    });
  };
}

/**
 * `/api/agents/<slug>/status` (GET): the same guard, then what a site owner's "Test connection"
 * and the widget want to know: the key and origin are accepted, which LLM answers, and, when it is
 * the offline scripted one, the phrases it understands as the input's placeholder. Writes nothing.
 */
export function createWidgetStatusHandler(deps: WidgetDeps) {
  return async (request: Request, slug: string): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'OPTIONS') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use GET' } }, { status: 405, headers: { allow: 'GET' } });
    const guarded = await guard(deps, request, slug);
    if (guarded instanceof Response) return guarded;
    const llm = deps.llm().name;
    return json(
      { agent: slug, instanceId: guarded.instanceId, llm, ...(llm === 'scripted' ? { placeholder: scriptedPhrasesHint(guarded.unit.editableFields) } : {}) },
      { headers: { ...cors(guarded.origin), 'cache-control': 'no-store' } },
    );
  };
}

const undoBodySchema = z.object({
  itemId: z.union([z.string().min(1).max(64), z.number().int().positive()]),
  fields: z.array(z.object({ field: z.string().min(1).max(100), before: z.string().max(500_000), after: z.string().max(500_000) })).min(1).max(20),
});

/**
 * `/api/agents/<slug>/undo`: the widget's Undo. Same guard; writes each change's `before` back
 * to the draft and streams the resulting diff (`changes`, then `done`).
 */
export function createWidgetUndoHandler(deps: WidgetDeps) {
  return async (request: Request, slug: string): Promise<Response> => {
    const guarded = await guard(deps, request, slug);
    if (guarded instanceof Response) return guarded;
    let body: z.infer<typeof undoBodySchema>;
    let itemId: string;
    try {
      body = await readBody(request, undoBodySchema);
      // The item id is checked as the content editor's input checks it, so the write and its audit row name a real item.
      const editor = guarded.unit.primitives.find((p) => p.name === guarded.unit.widgetChatTool.primitive)!;
      itemId = String(parseOrThrow(z.object({ itemId: editor.input.shape.id as z.ZodType }), { itemId: body.itemId }, 'Invalid body').itemId);
    } catch (error) {
      const domain = error as DomainError;
      return json({ error: domain.toPublicJSON() }, { status: domain.httpStatus, headers: cors(guarded.origin) });
    }
    return eventStream(guarded.origin, deps.logger, request.signal, async (send) => {
      const values = Object.fromEntries(body.fields.map((change) => [change.field, change.before]));
      const actor = actorFor(guarded, new URL(request.url).pathname);
      const requestedFields = body.fields.map((change) => change.field.slice(0, 64));
      const result = await auditedWrite(deps, actor, guarded, 'widget.undo', itemId, { requestedFields }, () => guarded.unit.restore(actor, { instanceId: guarded.instanceId, id: itemId, values }));
      if (result.noChanges) return send({ event: 'done', data: { fallback: true } });
      send({ event: 'changes', data: { fields: result.changes, nodeId: result.nodeId, postId: result.postId } });
      send({ event: 'done', data: {} });
    });
  };
}
