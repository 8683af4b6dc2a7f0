import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors/index.ts';
import { OutboundUnreachableError, type OutboundHttp } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { AgentCard } from '../agent-card.ts';
import type { A2aEvent, Message, MessageSendParams, Task } from '../protocol.ts';
import type { RemotePeers } from './peers.ts';
import { readSse } from './sse-reader.ts';

/** Tokens are refreshed this long before they expire. */
const TOKEN_MARGIN_MS = 30_000;
const CARD_TTL_MS = 60_000;

export interface RemoteEvent {
  /** The remote stream's event id (its sequence), for Last-Event-ID on reconnect. */
  id: number | null;
  event: A2aEvent;
}

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

/**
 * Calls agents on other instances: fetches the remote AgentCard, exchanges client credentials at
 * its tokenEndpoint (cached until shortly before expiry), and speaks JSON-RPC to its `url`; both
 * pinned to the peer's registered origin, every call through the outbound policy.
 */
export function createA2aClient(deps: { peers: RemotePeers; logger: Logger; http: OutboundHttp }) {
  const { http } = deps;
  const cards = new Map<string, { at: number; card: AgentCard }>();
  const tokens = new Map<string, { token: string; until: number }>();

  async function card(peerId: string): Promise<AgentCard> {
    const cached = cards.get(peerId);
    if (cached && Date.now() - cached.at < CARD_TTL_MS) return cached.card;
    const peer = await deps.peers.get(peerId);
    if (!peer) throw new DomainError('NOT_FOUND', `No remote peer ${peerId}`);
    const response = await http.fetch(`${peer.baseUrl}/.well-known/agent.json`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `${peerId}: AgentCard answered ${response.status}`);
    const fetched = await http.json<AgentCard>(response, MAX_CARD_BYTES, 'AgentCard');
    // Checked once when the card arrives; a card that points elsewhere is never cached or used.
    const pinned: AgentCard = {
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
    const url = (await card(peerId)).url;
    const send = async (bearer: string) =>
      http.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}`, ...headers }, body: JSON.stringify(body), ...(signal ? { signal } : {}), streaming, ...(streaming ? {} : { timeoutMs: 120_000 }) });
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

  /** `message/send`: one reply. */
  async function send(peerId: string, params: MessageSendParams): Promise<Task | Message> {
    const response = await post(peerId, { jsonrpc: '2.0', id: randomUUID(), method: 'message/send', params });
    return rpcResultOf(peerId, await http.json<{ result?: Task | Message }>(response, MAX_REPLY_BYTES, 'A2A answer'));
  }

  /**
   * `message/stream`: yields the remote events; when the connection drops before a final event,
   * reconnects with the same message and `Last-Event-ID`, so nothing is missed or repeated.
   */
  function stream(peerId: string, params: MessageSendParams, options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<RemoteEvent> {
    return streamCall(peerId, 'message/stream', params, options);
  }

  /** `tasks/resubscribe`: the current Task, then the events after `lastEventId`, reconnecting likewise. */
  function resubscribe(peerId: string, taskId: string, options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<RemoteEvent> {
    return streamCall(peerId, 'tasks/resubscribe', { id: taskId }, options);
  }

  async function* streamCall(peerId: string, method: string, params: unknown, options: { lastEventId?: number; signal?: AbortSignal }): AsyncGenerator<RemoteEvent> {
    let lastId = options.lastEventId ?? null;
    for (let attempt = 0; attempt < 5; attempt++) {
      let response: Response;
      try {
        response = await post(peerId, { jsonrpc: '2.0', id: randomUUID(), method, params }, lastId !== null ? { 'last-event-id': String(lastId) } : {}, options.signal, true);
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
          const payload = JSON.parse(message.data) as { result?: A2aEvent; error?: { code: number; message: string } };
          const event = rpcResultOf(peerId, payload)!;
          // tasks/resubscribe opens with the current Task, which is a snapshot, not a new event.
          if (method === 'tasks/resubscribe' && event.kind === 'task') continue;
          lastId = message.id !== null ? Number(message.id) : lastId;
          yield { id: lastId, event };
          if (event.kind === 'status-update' && event.final) return;
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

  return { card, token, send, stream, resubscribe, forgetToken: (peerId: string) => tokens.delete(peerId) };
}

export type A2aClient = ReturnType<typeof createA2aClient>;
