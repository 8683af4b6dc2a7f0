import { z } from 'zod';
import { summariseChanges, type AuditLog } from '../audit/index.ts';
import type { RouteActor } from '../auth/index.ts';
import type { ConnectorUnit, ContentEditorResult, StreamRegistry, WidgetEditResult } from '../connectors/index.ts';
import { DomainError, parseOrThrow, toDomainError } from '../errors/index.ts';
import { bearerToken, json, readBodyLimited, type RateLimiter } from '../http/index.ts';
import { scriptedPhrasesHint, type LlmProvider, type LlmToolCall, type LlmToolResult, type LlmTurnMessage } from '../llm/index.ts';
import { boundedResult, toolDefinitionOf, type ResolvedTool, type StepRecorder } from '../runs/index.ts';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/index.ts';
import { streamOpened } from '../telemetry/index.ts';
import { encodeWidgetEvent, type WidgetEvent } from './events.ts';
import type { WidgetKeys } from './widget-keys.ts';
import { UNDO_TOKEN_PATTERN, WIDGET_EDIT_TTL_MS, type WidgetEdit, type WidgetEdits } from './widget-edits.ts';

export const MAX_WIDGET_BODY_BYTES = 256 * 1024;
export const MAX_WIDGET_TURNS = 100;
/** The longest turn the stream route accepts, in characters (UTF-16 code units, as zod counts). */
export const MAX_WIDGET_TURN_CHARS = 20_000;

/** The widget's request body: its chat history and the id of the item open in the CMS (none: a site-level chat, which cannot edit). */
const streamBodySchema = z.object({
  itemId: z.union([z.string().min(1).max(64), z.number().int().positive()]).optional(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string().min(1).max(MAX_WIDGET_TURN_CHARS) })).min(1).max(MAX_WIDGET_TURNS),
  /** The user's yes to an edit that changes what visitors see (CMS-B: a live post becomes a draft while it is edited). */
  confirmLiveEdit: z.boolean().optional(),
});

/** Said instead of the write when an edit would take a live post offline and the user has not said yes. */
export const LIVE_EDIT_QUESTION = 'This post is live: editing it unpublishes it until it is published again. Confirm that you want to edit it, then ask again.';

const SYSTEM = 'You are the editing assistant inside a CMS editor. Answer briefly. When the user asks for a change to the open item, call the edit_content tool with the change as a task.';
/** Where no item is open (the CMS-A front page): a chat that has no tool, so it can never write. */
/** Said to the model when the assistant agent's skills are offered too. */
const SKILLS_SYSTEM = 'Other tools are skills you may use to look things up or draft text before you edit; their answers come back to you.';
const SITE_SYSTEM = 'You are the assistant of a CMS site. Answer briefly. No item is open here, so you cannot change any content: to have something edited, the user opens it (its view or edit page) and asks there.';

function cors(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

type Guarded = { unit: ConnectorUnit; instanceId: string; origin: string; historyTurns: number; assistantAgent: string | null };

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
  return { unit, instanceId, origin, historyTurns: settings.historyTurns, assistantAgent: settings.assistantAgent };
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
function eventStream(origin: string, logger: Logger, requestSignal: AbortSignal, produce: (send: (event: WidgetEvent, id?: string) => void, signal: AbortSignal) => Promise<void>): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const onRequestAbort = () => stop.abort();
  if (requestSignal.aborted) stop.abort();
  else requestSignal.addEventListener('abort', onRequestAbort, { once: true });
  let open = true;
  let closed = () => undefined as void;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      closed = streamOpened('widget');
      const send = (event: WidgetEvent, id?: string) => {
        if (open && !stop.signal.aborted) controller.enqueue(encoder.encode(encodeWidgetEvent(event, id)));
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
        closed();
        if (open) {
          open = false;
          controller.close();
        }
      }
    },
    cancel() {
      open = false;
      closed();
      stop.abort();
    },
  });
  return new Response(body, { status: 200, headers: { ...cors(origin), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' } });
}

/** The most rounds of one widget turn in which the model may call the assistant's skills. */
export const MAX_WIDGET_TOOL_ROUNDS = 4;

/** The assistant agent's skills, offered to the widget's turn as tools (agents only: the widget key unlocks no primitive). */
export interface WidgetSkills {
  /** The skills of `agent` that need no approval, resolved; none when it is not installed here. */
  of(agent: string): Promise<ResolvedTool[]>;
  callAgent(agent: string, input: string, call: { key: string; signal: AbortSignal; recorder: StepRecorder }): Promise<string>;
}

interface WidgetDeps {
  streams: StreamRegistry;
  widgetKeys: WidgetKeys;
  llm: () => LlmProvider;
  rateLimiter: RateLimiter;
  logger: Logger;
  /** Where the writes the widget causes are recorded. */
  audit: AuditLog;
  /** The changes the widget applied, each with its undo token. */
  edits: WidgetEdits;
  /** The assistant agent's skills as tools of the turn (none without). */
  skills?: WidgetSkills;
}

const actorFor = (guarded: Guarded, path: string): RouteActor => ({ type: 'route', id: `widget:${guarded.unit.name}:${guarded.instanceId}`, route: path });

/**
 * Runs one write the widget causes (an edit, an Undo) and records it in the audit log, whatever
 * its outcome: a failed edit may still have written (a draft revision, a demotion to draft). The
 * row names the connector (`resourceType`) and `<instance>/<item>` (`resourceId`); its details are
 * bounded: field names and byte sizes, never the values.
 */
async function auditedWrite<R extends ContentEditorResult>(
  deps: WidgetDeps,
  actor: RouteActor,
  guarded: Guarded,
  action: 'widget.edit' | 'widget.undo',
  itemId: string,
  details: Record<string, unknown>,
  write: () => Promise<R>,
): Promise<R> {
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
 * Keeps an applied change for its Undo and answers the token, or null when it could not be kept
 * (the change is applied all the same: it is shown, without an Undo).
 */
async function recordForUndo(deps: WidgetDeps, guarded: Guarded, actor: RouteActor, itemId: string, result: WidgetEditResult): Promise<string | null> {
  try {
    return await deps.edits.record({ connector: guarded.unit.name, instanceId: guarded.instanceId, itemId, fields: result.changes, state: result.state, actor: actor.id });
  } catch (error) {
    deps.logger.warn('a widget change could not be kept for its Undo', { error, connector: guarded.unit.name, instanceId: guarded.instanceId });
    return null;
  }
}

/**
 * `/api/agents/<slug>/stream`: after the guard, the body (400/413) and an LLM turn whose
 * widget-chat tool runs the connector's content editor, streamed as `text`, `changes`,
 * `error`, `done`. A `changes` event carries the change's undo token as its SSE `id`. Without an
 * `itemId` (a page where no item is open) the turn gets no tool: it answers, it cannot write.
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
      return refusal(error, origin);
    }
    const history = body.messages.slice(-guarded.historyTurns);
    const itemId = body.itemId;
    const editor = unit.primitives.find((p) => p.name === unit.widgetChatTool.primitive)!;
    // The assistant agent's skills, beside the content editor, where an item is open (the site-level chat has no tool at all).
    const skills = itemId !== undefined && guarded.assistantAgent && deps.skills ? await deps.skills.of(guarded.assistantAgent).catch((error: unknown) => {
      deps.logger.warn("the assistant agent's skills could not be offered; the turn has the content editor only", { agent: guarded.assistantAgent, error });
      return [];
    }) : [];
    const bySkill = new Map(skills.map((tool) => [tool.name, tool]));
    const messages: LlmTurnMessage[] = [{ role: 'system', content: itemId === undefined ? SITE_SYSTEM : skills.length ? `${SYSTEM} ${SKILLS_SYSTEM}` : SYSTEM }, ...history];
    const tools = itemId === undefined ? [] : [unit.widgetChatTool, ...skills.map(toolDefinitionOf)];
    return eventStream(origin, deps.logger, request.signal, async (send, signal) => {
      let edited = false;
      for (let round = 0; ; round++) {
        const asked: LlmToolCall[] = [];
        let said = '';
        const offered = round < MAX_WIDGET_TOOL_ROUNDS ? tools : tools.filter((tool) => tool.name === unit.widgetChatTool.name);
        for await (const part of deps.llm().stream({ messages, ...(offered.length ? { tools: offered } : {}) }, signal)) {
        if (signal.aborted) return;
        if (part.type === 'text-delta' && part.text) {
          said += part.text;
          send({ event: 'text', data: { content: part.text } });
        }
        if (part.type === 'tool-call' && bySkill.has(part.call.toolName)) asked.push(part.call);
        if (part.type === 'tool-call' && itemId !== undefined && part.call.toolName === unit.widgetChatTool.name && !edited) {
          edited = true;
          const task = String((part.call.input as { task?: unknown }).task ?? history.at(-1)!.content);
          // The widget key unlocks this one tool only: the content editor, with its input validated.
          const input = editor.input.parse({ instanceId, id: itemId, task }) as { id: string | number };
          const actor = actorFor(guarded, new URL(request.url).pathname);
          // The widget's confirm is the server's rule too: without the user's yes, the question, not the write.
          if (!body.confirmLiveEdit && unit.editChangesLive && (await unit.editChangesLive(actor, { instanceId, id: input.id }))) {
            send({ event: 'text', data: { content: ` ${LIVE_EDIT_QUESTION}` } });
            return send({ event: 'done', data: { fallback: true } });
          }
          const result = await auditedWrite(deps, actor, guarded, 'widget.edit', String(input.id), { taskBytes: Buffer.byteLength(task) }, () => unit.widgetEdit(actor, { instanceId, id: input.id, task }));
          if (result.noChanges) return send({ event: 'done', data: { fallback: true } });
          const token = await recordForUndo(deps, guarded, actor, String(input.id), result);
          send({ event: 'changes', data: { fields: result.changes, nodeId: result.nodeId, postId: result.postId } }, token ?? undefined);
          if (!token) send({ event: 'text', data: { content: ' (This change cannot be undone from the assistant: undo it in the editor.)' } });
        }
        }
        // An edit ends the turn, as it always has; skills' answers go back to the model for another round.
        if (edited || asked.length === 0 || signal.aborted) break;
        const answers = await Promise.all(asked.map((call) => callSkill(bySkill.get(call.toolName)!, call, signal)));
        messages.push({ role: 'assistant', content: said, toolCalls: asked }, ...asked.map((call, at) => ({ role: 'tool' as const, toolCallId: call.toolCallId, toolName: call.toolName, result: answers[at]! })));
      }
      send({ event: 'done', data: edited ? {} : { fallback: true } });
    });
  };

  /** One skill call of the turn: what the skill answered, or why it failed, for the model (a widget turn is not a run: nothing to replay, a fresh key each call). */
  async function callSkill(tool: ResolvedTool, call: LlmToolCall, signal: AbortSignal): Promise<LlmToolResult> {
    const key = randomUUID();
    const recorder: StepRecorder = { calls: [] };
    try {
      const value = await tool.call(call.input, { key, callId: call.toolCallId, signal, recorder, callAgent: (agent, input) => deps.skills!.callAgent(agent, input, { key, signal, recorder }) });
      return { type: 'json', value: boundedResult(value) };
    } catch (error) {
      if (signal.aborted) throw error;
      return { type: 'error', message: error instanceof DomainError ? error.message : 'The skill failed' };
    }
  }
}

/** A refusal as the widget routes answer it: the error's JSON, with CORS headers so the widget can show it. */
function refusal(error: unknown, origin: string, logger?: Logger): Response {
  const domain = toDomainError(error, logger);
  return json({ error: domain.toPublicJSON() }, { status: domain.httpStatus, headers: cors(origin) });
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

/** An Undo names the change by its token, and nothing else: the values it writes are the ones the service recorded. */
const undoBodySchema = z
  .object({
    token: z.string().regex(UNDO_TOKEN_PATTERN, 'must be the undo token of a change (the SSE id of its changes event)'),
    /** Required when undoing the change changes the item's published status (CMS-B: the diff has `status`). */
    confirmStatusChange: z.boolean().optional(),
  })
  .strict();

const DAYS_KEPT = WIDGET_EDIT_TTL_MS / 86_400_000;

/** Why this Undo may not go ahead before anything is claimed or read from the CMS, or null. */
function undoRefusal(edit: WidgetEdit | null, confirmed: boolean): DomainError | null {
  if (!edit) return new DomainError('NOT_FOUND', `This change cannot be undone any more: an Undo is kept for ${DAYS_KEPT} days, for the site the change was made on.`);
  if (edit.undoneAt) return new DomainError('CONFLICT', 'This change was already undone.');
  const status = edit.fields.find((change) => change.field === 'status');
  if (status && !confirmed) {
    const what = status.before === 'publish' ? 'publishes the post again' : `sets the post's status back to "${status.before}"`;
    return new DomainError('CONFLICT', `Undoing this change ${what}: confirm it first.`, { details: [{ path: 'confirmStatusChange', reason: `the status goes from "${status.after}" back to "${status.before}"` }] });
  }
  return null;
}

/**
 * `/api/agents/<slug>/undo`: the widget's Undo of one change the service applied, named by its
 * token. Same guard; then the token's change (404 unknown or expired), at most once (409 when
 * already undone or being undone), with the confirmation a status change needs (409 without),
 * and only while the item still holds what the change left (409, nothing written). Refusals and
 * failures are JSON errors; an Undo that went through streams the diff it made (`changes`, with
 * no token: an Undo is not itself undone from the widget), then `done`.
 */
export function createWidgetUndoHandler(deps: WidgetDeps) {
  return async (request: Request, slug: string): Promise<Response> => {
    const guarded = await guard(deps, request, slug);
    if (guarded instanceof Response) return guarded;
    const { unit, instanceId, origin } = guarded;
    let body: z.infer<typeof undoBodySchema>;
    let edit: WidgetEdit | null;
    try {
      const raw = await readBody(request, z.unknown());
      if (raw && typeof raw === 'object' && ('fields' in raw || 'itemId' in raw)) {
        throw new DomainError('VALIDATION_FAILED', 'Undo takes the token of a change, not field values: reload the page to get the current assistant.', { details: [{ path: 'token', reason: 'required; fields and itemId are not accepted' }] });
      }
      body = parseOrThrow(undoBodySchema, raw, 'Invalid body');
      edit = await deps.edits.find(unit.name, instanceId, body.token);
      const refused = undoRefusal(edit, body.confirmStatusChange === true);
      if (refused) throw refused;
      if (!(await deps.edits.claim(edit!))) throw new DomainError('CONFLICT', 'This change is being undone already, or was undone.');
    } catch (error) {
      return refusal(error, origin, deps.logger);
    }
    const change = edit!;
    const actor = actorFor(guarded, new URL(request.url).pathname);
    let result: ContentEditorResult;
    try {
      result = await auditedWrite(deps, actor, guarded, 'widget.undo', change.itemId, { requestedFields: change.fields.map((c) => c.field) }, () =>
        unit.undoEdit(actor, { instanceId, id: change.itemId, fields: change.fields, state: change.state }),
      );
    } catch (error) {
      // Refused or failed: open again, so a later click (once the item is back as the change left it) claims afresh.
      await deps.edits.settle(change, 'open').catch((settleError: unknown) => deps.logger.warn('a refused Undo could not be reopened', { error: settleError }));
      return refusal(error, origin, deps.logger);
    }
    await deps.edits.settle(change, 'undone').catch((error: unknown) => deps.logger.warn('an Undo could not be marked done; its claim keeps it from running again', { error }));
    return eventStream(origin, deps.logger, request.signal, async (send) => {
      if (result.noChanges) return send({ event: 'done', data: { fallback: true } });
      send({ event: 'changes', data: { fields: result.changes, nodeId: result.nodeId, postId: result.postId } });
      send({ event: 'done', data: {} });
    });
  };
}
