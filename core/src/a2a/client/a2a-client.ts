import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors/index.ts';
import { OutboundUnreachableError, type OutboundHttp } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { AgentCard } from '../agent-card.ts';
import type { RunArtifact, RunEvent, RunMessage, RunStatus } from '../../runs/index.ts';
import { eventFrom03, messageTo03, replyFrom03 } from '../compat/v03/protocol.ts';
import type { SendParams } from '../operations.ts';
import { eventFromV1, sendParamsToV1, taskFromV1, type Wire } from '../protocol-v1.ts';
import type { RemotePeers, RemotePeerView } from './peers.ts';
import { readSse } from './sse-reader.ts';

/** Tokens are refreshed this long before they expire. */
const TOKEN_MARGIN_MS = 30_000;
const CARD_TTL_MS = 60_000;

export interface RemoteEvent {
  /** The remote stream's event id (its sequence), for Last-Event-ID on reconnect. */
  id: number | null;
  event: RunEvent;
  /** The peer's task id, as the event names it (null when it does not). */
  taskId: string | null;
}

/** The task id a peer's stream response names, in either version's shape. */
function wireTaskId(result: Wire): string | null {
  const id = result?.statusUpdate?.taskId ?? result?.artifactUpdate?.taskId ?? result?.task?.id ?? result?.message?.taskId ?? result?.taskId ?? (result?.kind === 'task' ? result.id : undefined);
  return typeof id === 'string' && id ? id : null;
}

/** A peer's answer to a send: the task it ran (or started), or a plain message. */
export type RemoteReply = { kind: 'task'; id: string; status: RunStatus; artifacts: RunArtifact[] } | { kind: 'message'; message: RunMessage };

/** The message in the peer's protocol version. */
const sendParamsTo03 = (params: SendParams) => ({ message: messageTo03(params.message), ...(params.metadata ? { metadata: params.metadata } : {}) });

const MAX_CARD_BYTES = 1024 * 1024;
const MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * The card's `url` and `tokenEndpoint` must be on the origin the admin registered for the peer:
 * a card is the peer's own statement, and a hostile or compromised peer could otherwise point
 * our client secret and bearer tokens at any host (or at our internal network).
 */
export function pinnedToPeer(peer: { id: string; baseUrl: string }, field: string, value: unknown): string {
  const origin = new URL(peer.baseUrl).origin;
  let url: URL | null = null;
  if (typeof value === 'string' && URL.canParse(value)) url = new URL(value);
  if (!url || url.origin !== origin || url.username || url.password) {
    throw new DomainError('UPSTREAM_FAILED', `${peer.id}: its AgentCard's ${field} (${typeof value === 'string' ? value.slice(0, 200) : 'missing'}) is not on the peer's registered origin ${origin}; refused`);
  }
  return url.toString();
}

/** A peer's card as this client uses it: the v0.3 shape, with the protocol its endpoint speaks. */
export type PeerCard = AgentCard & { protocol: '1.0' | '0.3' };

/**
 * Reads a v1.0 card (`supportedInterfaces`) as a PeerCard: the JSON-RPC interface offering 1.0
 * (else 0.3) and the OAuth 2.0 client-credentials token URL of its security schemes. Null when the
 * card offers no JSON-RPC interface.
 */
function fromV1Card(card: Wire): PeerCard | null {
  const interfaces = (Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as Wire[]) : []).filter((i) => typeof i?.url === 'string' && String(i.protocolBinding).toUpperCase() === 'JSONRPC');
  const chosen = interfaces.find((i) => /^1\./.test(String(i.protocolVersion ?? ''))) ?? interfaces.find((i) => /^0\.3/.test(String(i.protocolVersion ?? '')));
  if (!chosen) return null;
  const schemes = Object.values((card.securitySchemes ?? {}) as Record<string, Wire>);
  const tokenEndpoint = schemes.map((scheme) => scheme?.oauth2SecurityScheme?.flows?.clientCredentials?.tokenUrl).find((url) => typeof url === 'string');
  return {
    ...(card as AgentCard),
    url: chosen.url,
    authentication: { tokenEndpoint, schemes: ['oauth2-client-credentials'] },
    skills: Array.isArray(card.skills) ? card.skills : [],
    protocol: /^1\./.test(String(chosen.protocolVersion)) ? '1.0' : '0.3',
  } as PeerCard;
}

/**
 * Calls agents on other instances: fetches the remote AgentCard, exchanges client credentials at
 * its tokenEndpoint (cached until shortly before expiry), and speaks JSON-RPC to its endpoint;
 * both pinned to the peer's registered origin, every call through the outbound policy. A peer
 * whose card (`/.well-known/agent-card.json`) offers A2A v1.0 is spoken to in v1.0; otherwise
 * (a v0.3 card there, or only the contract's `/.well-known/agent.json`) in v0.3.
 */
export function createA2aClient(deps: { peers: RemotePeers; logger: Logger; http: OutboundHttp }) {
  const { http } = deps;
  const cards = new Map<string, { at: number; card: PeerCard }>();
  const tokens = new Map<string, { token: string; until: number }>();

  async function discover(peer: RemotePeerView): Promise<PeerCard> {
    const current = peer.protocol === '0.3' ? null : await http.fetch(`${peer.baseUrl}/.well-known/agent-card.json`, { headers: { accept: 'application/json', 'a2a-version': '1.0' } }).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') throw error;
      return null;
    });
    if (current?.ok) {
      const fetched = await http.json<Wire>(current, MAX_CARD_BYTES, 'AgentCard').catch(() => null);
      const v1 = fetched ? fromV1Card(fetched) : null;
      if (v1) return v1;
      if (fetched && typeof fetched.url === 'string' && fetched.authentication) return { ...(fetched as AgentCard), protocol: '0.3' };
    } else await current?.body?.cancel().catch(() => undefined);
    const response = await http.fetch(`${peer.baseUrl}/.well-known/agent.json`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `${peer.id}: AgentCard answered ${response.status}`);
    return { ...(await http.json<AgentCard>(response, MAX_CARD_BYTES, 'AgentCard')), protocol: '0.3' };
  }

  async function card(peerId: string): Promise<PeerCard> {
    const cached = cards.get(peerId);
    if (cached && Date.now() - cached.at < CARD_TTL_MS) return cached.card;
    const peer = await deps.peers.get(peerId);
    if (!peer) throw new DomainError('NOT_FOUND', `No remote peer ${peerId}`);
    const fetched = await discover(peer);
    // Checked once when the card arrives; a card that points elsewhere is never cached or used.
    const pinned: PeerCard = {
      ...fetched,
      url: pinnedToPeer(peer, 'url', fetched?.url),
      authentication: { ...fetched.authentication, tokenEndpoint: pinnedToPeer(peer, 'authentication.tokenEndpoint', fetched?.authentication?.tokenEndpoint) },
    };
    cards.set(peerId, { at: Date.now(), card: pinned });
    return pinned;
  }

  async function token(peerId: string, refresh = false): Promise<string> {
    const cached = tokens.get(peerId);
    if (!refresh && cached && cached.until > Date.now()) return cached.token;
    const peer = await deps.peers.credentials(peerId);
    if (!peer) throw new DomainError('NOT_FOUND', `No remote peer ${peerId}`);
    const endpoint = (await card(peerId)).authentication.tokenEndpoint;
    const response = await http.fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(peer.clientId)}:${encodeURIComponent(peer.clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `${peerId}: token endpoint answered ${response.status}`);
    const body = await http.json<{ access_token: string; expires_in: number }>(response, 64 * 1024, 'token answer');
    if (typeof body.access_token !== 'string' || !Number.isFinite(body.expires_in)) throw new DomainError('UPSTREAM_FAILED', `${peerId}: the token endpoint answered without access_token and expires_in`);
    tokens.set(peerId, { token: body.access_token, until: Date.now() + body.expires_in * 1000 - TOKEN_MARGIN_MS });
    return body.access_token;
  }

  /** POSTs a JSON-RPC call with the bearer token, retrying once with a fresh token on 401. */
  async function post(peerId: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal, streaming = false): Promise<Response> {
    const { url, protocol } = await card(peerId);
    const send = async (bearer: string) =>
      http.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': protocol, authorization: `Bearer ${bearer}`, ...headers }, body: JSON.stringify(body), ...(signal ? { signal } : {}), streaming, ...(streaming ? {} : { timeoutMs: 120_000 }) });
    let response = await send(await token(peerId));
    if (response.status === 401) {
      await response.body?.cancel().catch(() => undefined);
      response = await send(await token(peerId, true));
    }
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `${peerId}: A2A endpoint answered ${response.status}`);
    return response;
  }

  function rpcResultOf<T>(peerId: string, payload: { result?: T; error?: { code: number; message: string } }): T {
    if (payload.error) throw new DomainError('UPSTREAM_FAILED', `${peerId}: ${payload.error.message} (${payload.error.code})`, { details: payload.error });
    return payload.result as T;
  }

  /**
   * `message/send` (v1.0 `SendMessage`): one reply. `idempotencyKey` goes out as the
   * Idempotency-Key header: a peer that saw it answers with the task it already has.
   */
  async function send(peerId: string, params: SendParams, options: { idempotencyKey?: string } = {}): Promise<RemoteReply> {
    const headers: Record<string, string> = options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {};
    if ((await card(peerId)).protocol === '1.0') {
      const response = await post(peerId, { jsonrpc: '2.0', id: randomUUID(), method: 'SendMessage', params: sendParamsToV1(params) }, headers);
      const result = rpcResultOf(peerId, await http.json<{ result?: Wire }>(response, MAX_REPLY_BYTES, 'A2A answer'));
      if (result?.task) return { kind: 'task', ...taskFromV1(result.task) };
      const event = result ? eventFromV1(result) : null;
      if (event?.type !== 'message') throw new DomainError('UPSTREAM_FAILED', `${peerId}: SendMessage answered neither a task nor a message`);
      return { kind: 'message', message: event.message };
    }
    const response = await post(peerId, { jsonrpc: '2.0', id: randomUUID(), method: 'message/send', params: sendParamsTo03(params) }, headers);
    const reply = replyFrom03(rpcResultOf(peerId, await http.json<{ result?: unknown }>(response, MAX_REPLY_BYTES, 'A2A answer')));
    if (!reply) throw new DomainError('UPSTREAM_FAILED', `${peerId}: message/send answered neither a task nor a message`);
    return reply;
  }

  /** A call answered with one Task (GetTask / CancelTask, `tasks/get` / `tasks/cancel` in v0.3): its id and status. */
  async function taskCall(peerId: string, kind: 'get' | 'cancel', taskId: string): Promise<{ id: string; status: RunStatus }> {
    const v1 = (await card(peerId)).protocol === '1.0';
    const method = v1 ? (kind === 'get' ? 'GetTask' : 'CancelTask') : kind === 'get' ? 'tasks/get' : 'tasks/cancel';
    const response = await post(peerId, { jsonrpc: '2.0', id: randomUUID(), method, params: { id: taskId } });
    const result = rpcResultOf(peerId, await http.json<{ result?: Wire }>(response, MAX_REPLY_BYTES, 'A2A answer'));
    if (v1) return taskFromV1(result);
    const reply = replyFrom03(result);
    if (reply?.kind !== 'task') throw new DomainError('UPSTREAM_FAILED', `${peerId}: ${method} answered no task`);
    return { id: reply.id, status: reply.status };
  }

  /**
   * `message/stream`: yields the remote events; when the connection drops before a final event,
   * reconnects with the same message and `Last-Event-ID`, so nothing is missed or repeated.
   */
  function stream(peerId: string, params: SendParams, options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<RemoteEvent> {
    return streamCall(peerId, 'stream', params, options);
  }

  /** `tasks/resubscribe`: the current Task, then the events after `lastEventId`, reconnecting likewise. */
  function resubscribe(peerId: string, taskId: string, options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<RemoteEvent> {
    return streamCall(peerId, 'resubscribe', { id: taskId }, options);
  }

  async function* streamCall(peerId: string, kind: 'stream' | 'resubscribe', params: SendParams | { id: string }, options: { lastEventId?: number; signal?: AbortSignal }): AsyncGenerator<RemoteEvent> {
    let lastId = options.lastEventId ?? null;
    for (let attempt = 0; attempt < 5; attempt++) {
      const v1 = (await card(peerId)).protocol === '1.0';
      const method = v1 ? (kind === 'stream' ? 'SendStreamingMessage' : 'SubscribeToTask') : kind === 'stream' ? 'message/stream' : 'tasks/resubscribe';
      const body = kind === 'resubscribe' ? params : v1 ? sendParamsToV1(params as SendParams) : sendParamsTo03(params as SendParams);
      let response: Response;
      try {
        response = await post(peerId, { jsonrpc: '2.0', id: randomUUID(), method, params: body }, lastId !== null ? { 'last-event-id': String(lastId) } : {}, options.signal, true);
      } catch (error) {
        if (options.signal?.aborted || (error instanceof DomainError && !(error instanceof OutboundUnreachableError))) throw error;
        deps.logger.warn('remote stream connect failed, retrying', { peerId, attempt, error });
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
        continue;
      }
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        rpcResultOf(peerId, await http.json<{ error?: { code: number; message: string } }>(response, MAX_REPLY_BYTES, 'A2A answer'));
        throw new DomainError('UPSTREAM_FAILED', `${peerId}: expected an event stream`);
      }
      try {
        for await (const message of readSse(response.body!, options.signal)) {
          const payload = JSON.parse(message.data) as { result?: unknown; error?: { code: number; message: string } };
          const result = rpcResultOf(peerId, payload);
          const event = v1 ? eventFromV1(result as Wire) : eventFrom03(result);
          if (!event) continue;
          // A resubscription opens with the current Task, which is a snapshot, not a new event.
          if (kind === 'resubscribe' && event.type === 'created') continue;
          lastId = message.id !== null ? Number(message.id) : lastId;
          yield { id: lastId, event, taskId: wireTaskId(result as Wire) };
          if (event.type === 'status' && event.final) return;
        }
      } catch (error) {
        if (options.signal?.aborted || error instanceof DomainError) throw error;
        deps.logger.warn('remote stream dropped, reconnecting with Last-Event-ID', { peerId, lastId, error });
        continue;
      }
      if (options.signal?.aborted) return;
      deps.logger.warn('remote stream ended before a final event, reconnecting', { peerId, lastId });
    }
    throw new DomainError('UPSTREAM_FAILED', `${peerId}: the stream kept dropping`);
  }

  return {
    card,
    token,
    send,
    stream,
    resubscribe,
    /** The peer's task as it stands (GetTask). */
    getTask: (peerId: string, taskId: string) => taskCall(peerId, 'get', taskId),
    /** Asks the peer to cancel its task (CancelTask); a peer that cannot answers -32002 (UPSTREAM_FAILED with the code in `details`). */
    cancel: (peerId: string, taskId: string) => taskCall(peerId, 'cancel', taskId),
    forgetToken: (peerId: string) => tokens.delete(peerId),
  };
}

export type A2aClient = ReturnType<typeof createA2aClient>;
