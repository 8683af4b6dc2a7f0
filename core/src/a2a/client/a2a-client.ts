import { DomainError } from '../../errors/index.ts';
import { OutboundUnreachableError, type OutboundHttp } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { AgentCard } from '../agent-card.ts';
import type { RunEvent } from '../../runs/index.ts';
import type { SendParams } from '../operations.ts';
import type { Wire } from '../protocol-v1.ts';
import { chooseInterface, interfacesOfV03Card, interfacesOfV1Card, type ChosenInterface, type PeerInterface } from './interface-choice.ts';
import { jsonRpcTransport } from './jsonrpc-transport.ts';
import type { PeerOutcome, RemotePeers, RemotePeerView } from './peers.ts';
import { restTransport } from './rest-transport.ts';
import { readSse } from './sse-reader.ts';
import type { A2aTransport, PeerCard, PeerConnection, RemoteReply, StreamKind } from './transport.ts';

export type { PeerCard, RemoteReply } from './transport.ts';

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

const MAX_CARD_BYTES = 1024 * 1024;

const TRANSPORTS: Record<PeerCard['binding'], A2aTransport> = { JSONRPC: jsonRpcTransport, 'HTTP+JSON': restTransport };

/** `value` as a URL on the peer's registered origin (no credentials in it), or null. */
function onPeerOrigin(peer: { baseUrl: string }, value: unknown): URL | null {
  if (typeof value !== 'string' || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.origin === new URL(peer.baseUrl).origin && !url.username && !url.password ? url : null;
}

/**
 * The card's interface URLs and `tokenEndpoint` must be on the origin the admin registered for the
 * peer: a card is the peer's own statement, and a hostile or compromised peer could otherwise
 * point our client secret and bearer tokens at any host (or at our internal network).
 */
export function pinnedToPeer(peer: { id: string; baseUrl: string }, field: string, value: unknown): string {
  const url = onPeerOrigin(peer, value);
  if (!url) {
    throw new DomainError('UPSTREAM_FAILED', `${peer.id}: its AgentCard's ${field} (${typeof value === 'string' ? value.slice(0, 200) : 'missing'}) is not on the peer's registered origin ${new URL(peer.baseUrl).origin}; refused`);
  }
  return url.toString();
}

/**
 * The interface of `interfaces` to call the peer on (interface-choice.ts), its URL pinned to the
 * peer's origin. Null when the card offers no interface the client speaks; a refusal when it
 * offers some, each on another origin.
 */
function chosenOf(peer: RemotePeerView, interfaces: PeerInterface[]): ChosenInterface | null {
  const { chosen, refused } = chooseInterface(interfaces, (url) => onPeerOrigin(peer, url) !== null);
  if (chosen) return { ...chosen, url: pinnedToPeer(peer, chosen.field, chosen.url) };
  if (refused[0]) pinnedToPeer(peer, refused[0].field, refused[0].url);
  return null;
}

/** A v1.0 card (`supportedInterfaces`) as a PeerCard on `chosen`, with the OAuth 2.0 client-credentials token URL of its security schemes. */
function fromV1Card(card: Wire, chosen: ChosenInterface): PeerCard {
  const schemes = Object.values((card.securitySchemes ?? {}) as Record<string, Wire>);
  const tokenEndpoint = schemes.map((scheme) => scheme?.oauth2SecurityScheme?.flows?.clientCredentials?.tokenUrl).find((url) => typeof url === 'string');
  return {
    ...(card as AgentCard),
    url: chosen.url,
    authentication: { tokenEndpoint, schemes: ['oauth2-client-credentials'] },
    skills: Array.isArray(card.skills) ? card.skills : [],
    protocol: chosen.protocol,
    binding: chosen.binding,
  } as PeerCard;
}

/** A v0.3 card as a PeerCard on the interface chosen from its `url`/`preferredTransport`/`additionalInterfaces`. */
function fromV03Card(peer: RemotePeerView, card: Wire): PeerCard {
  const chosen = chosenOf(peer, interfacesOfV03Card(card));
  if (!chosen) throw new DomainError('UPSTREAM_FAILED', `${peer.id}: its AgentCard offers no interface this client speaks (JSON-RPC, or HTTP+JSON in A2A 1.0)`);
  return { ...(card as AgentCard), url: chosen.url, protocol: chosen.protocol, binding: chosen.binding };
}

/**
 * Calls agents on other instances: fetches the remote AgentCard, exchanges client credentials at
 * its tokenEndpoint (cached until shortly before expiry), and calls its endpoint on the binding
 * the card prefers among those this client speaks (JSON-RPC or HTTP+JSON; ADR 0035); every URL
 * pinned to the peer's registered origin, every call through the outbound policy. A peer whose
 * card (`/.well-known/agent-card.json`) offers A2A v1.0 is spoken to in v1.0; otherwise (a v0.3
 * card there, or only the contract's `/.well-known/agent.json`) in v0.3.
 */
export function createA2aClient(deps: { peers: RemotePeers; logger: Logger; http: OutboundHttp }) {
  const { http } = deps;
  const cards = new Map<string, { at: number; card: PeerCard }>();
  const tokens = new Map<string, { token: string; until: number }>();

  /** The peer's status (last answer, last failure) follows every call; a status write never fails a call. */
  const note = (peerId: string, outcome: PeerOutcome) => {
    deps.peers.noteOutcome(peerId, outcome).catch((error: unknown) => deps.logger.warn('could not record a peer status', { peerId, error }));
  };
  async function observed<T>(peerId: string, work: () => Promise<T>, answered: (value: T) => PeerOutcome = () => ({ ok: true })): Promise<T> {
    try {
      const value = await work();
      note(peerId, answered(value));
      return value;
    } catch (error) {
      note(peerId, { ok: false, message: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }
  const byStatus = (response: Response): PeerOutcome => (response.status >= 500 || response.status === 401 || response.status === 403 ? { ok: false, message: `answered HTTP ${response.status}` } : { ok: true });

  function forget(peerId: string): void {
    cards.delete(peerId);
    tokens.delete(peerId);
  }

  async function discover(peer: RemotePeerView): Promise<PeerCard> {
    const current = peer.protocol === '0.3' ? null : await http.fetch(`${peer.baseUrl}/.well-known/agent-card.json`, { headers: { accept: 'application/json', 'a2a-version': '1.0' } }).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') throw error;
      return null;
    });
    if (current?.ok) {
      const fetched = await http.json<Wire>(current, MAX_CARD_BYTES, 'AgentCard').catch(() => null);
      const chosen = fetched ? chosenOf(peer, interfacesOfV1Card(fetched)) : null;
      if (fetched && chosen) return fromV1Card(fetched, chosen);
      if (fetched && typeof fetched.url === 'string' && fetched.authentication) return fromV03Card(peer, fetched);
    } else await current?.body?.cancel().catch(() => undefined);
    const response = await http.fetch(`${peer.baseUrl}/.well-known/agent.json`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `${peer.id}: AgentCard answered ${response.status}`);
    return fromV03Card(peer, await http.json<Wire>(response, MAX_CARD_BYTES, 'AgentCard'));
  }

  async function card(peerId: string): Promise<PeerCard> {
    const cached = cards.get(peerId);
    if (cached && Date.now() - cached.at < CARD_TTL_MS) return cached.card;
    const peer = await deps.peers.get(peerId);
    if (!peer) throw new DomainError('NOT_FOUND', `No remote peer ${peerId}`);
    const fetched = await observed(peerId, () => discover(peer));
    // Checked once when the card arrives (the interface URL as it was chosen); a card that points elsewhere is never cached or used.
    const pinned: PeerCard = {
      ...fetched,
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
    const response = await observed(peerId, () => http.fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(peer.clientId)}:${encodeURIComponent(peer.clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    }), byStatus);
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `${peerId}: token endpoint answered ${response.status}`);
    const body = await http.json<{ access_token: string; expires_in: number }>(response, 64 * 1024, 'token answer');
    if (typeof body.access_token !== 'string' || !Number.isFinite(body.expires_in)) throw new DomainError('UPSTREAM_FAILED', `${peerId}: the token endpoint answered without access_token and expires_in`);
    tokens.set(peerId, { token: body.access_token, until: Date.now() + body.expires_in * 1000 - TOKEN_MARGIN_MS });
    return body.access_token;
  }

  /** The peer as its transport reaches it; `url` is the chosen interface or a path under it, on the pinned origin. */
  async function connection(peerId: string): Promise<{ peer: PeerConnection; transport: A2aTransport }> {
    // A removed peer is not called again, whatever card or token is still cached for it.
    if (!(await deps.peers.get(peerId))) {
      forget(peerId);
      throw new DomainError('NOT_FOUND', `No remote peer ${peerId}`);
    }
    const peerCard = await card(peerId);
    const peer: PeerConnection = {
      peerId,
      card: peerCard,
      http,
      async call(url, init) {
        const send = async (bearer: string) => observed(peerId, () => http.fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${bearer}` }, ...(init.streaming ? {} : { timeoutMs: 120_000 }) }), byStatus);
        const response = await send(await token(peerId));
        if (response.status !== 401) return response;
        await response.body?.cancel().catch(() => undefined);
        return send(await token(peerId, true));
      },
    };
    return { peer, transport: TRANSPORTS[peerCard.binding] };
  }

  /**
   * SendMessage (`message/send` in v0.3): one reply. `idempotencyKey` goes out as the
   * Idempotency-Key header: a peer that saw it answers with the task it already has.
   */
  async function send(peerId: string, params: SendParams, options: { idempotencyKey?: string } = {}): Promise<RemoteReply> {
    const { peer, transport } = await connection(peerId);
    return transport.send(peer, params, options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {});
  }

  /** GetTask / CancelTask (`tasks/get` / `tasks/cancel` in v0.3): the task's id and status. */
  async function taskCall(peerId: string, kind: 'get' | 'cancel', taskId: string) {
    const { peer, transport } = await connection(peerId);
    return transport.task(peer, kind, taskId);
  }

  /**
   * SendStreamingMessage: yields the remote events; when the connection drops before a final
   * event, reconnects with the same message and `Last-Event-ID`, so nothing is missed or repeated.
   */
  function stream(peerId: string, params: SendParams, options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<RemoteEvent> {
    return streamCall(peerId, 'stream', params, options);
  }

  /** SubscribeToTask: the current Task, then the events after `lastEventId`, reconnecting likewise. */
  function resubscribe(peerId: string, taskId: string, options: { lastEventId?: number; signal?: AbortSignal } = {}): AsyncGenerator<RemoteEvent> {
    return streamCall(peerId, 'resubscribe', { id: taskId }, options);
  }

  async function* streamCall(peerId: string, kind: StreamKind, params: SendParams | { id: string }, options: { lastEventId?: number; signal?: AbortSignal }): AsyncGenerator<RemoteEvent> {
    let lastId = options.lastEventId ?? null;
    for (let attempt = 0; attempt < 5; attempt++) {
      const { peer, transport } = await connection(peerId);
      let response: Response;
      try {
        response = await transport.openStream(peer, kind, params, lastId !== null ? { 'last-event-id': String(lastId) } : {}, options.signal);
      } catch (error) {
        if (options.signal?.aborted || (error instanceof DomainError && !(error instanceof OutboundUnreachableError))) throw error;
        deps.logger.warn('remote stream connect failed, retrying', { peerId, attempt, error });
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
        continue;
      }
      try {
        for await (const message of readSse(response.body!, options.signal)) {
          const { result, event } = transport.frame(peer, message.data);
          if (!event) continue;
          // A resubscription opens with the current Task, which is a snapshot, not a new event.
          if (kind === 'resubscribe' && event.type === 'created') continue;
          lastId = message.id !== null ? Number(message.id) : lastId;
          yield { id: lastId, event, taskId: wireTaskId(result) };
          if (event.type === 'status' && event.final) return;
        }
      } catch (error) {
        if (options.signal?.aborted || error instanceof DomainError) throw error;
        deps.logger.warn('remote stream dropped, reconnecting with Last-Event-ID', { peerId, lastId, binding: peer.card.binding, error });
        continue;
      }
      if (options.signal?.aborted) return;
      deps.logger.warn('remote stream ended before a final event, reconnecting', { peerId, lastId, binding: peer.card.binding });
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
    /** Drops what is cached for a peer (its card and token), as after it was changed or removed. */
    forget,
  };
}

export type A2aClient = ReturnType<typeof createA2aClient>;
