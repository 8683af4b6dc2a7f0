import { DomainError } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';
import type { RunArtifact, RunEvent, RunMessage, RunStatus } from '../../runs/index.ts';
import type { AgentCard } from '../agent-card.ts';
import type { SendParams } from '../operations.ts';
import { eventFromV1, taskFromV1, type Wire } from '../protocol-v1.ts';
import { isObject } from '../wire.ts';
import type { ClientBinding, ClientProtocol } from './interface-choice.ts';

/** A peer's card as this client uses it: the v0.3 shape, with the interface chosen to call it on (`url`, its binding and protocol version). */
export type PeerCard = AgentCard & { protocol: ClientProtocol; binding: ClientBinding };

/** A peer's answer to a send: the task it ran (or started), or a plain message. */
export type RemoteReply = { kind: 'task'; id: string; status: RunStatus; artifacts: RunArtifact[]; metadata?: Record<string, unknown> } | { kind: 'message'; message: RunMessage };

export const MAX_REPLY_BYTES = 8 * 1024 * 1024;

/** One peer as a transport reaches it: its card, and HTTP calls carrying its bearer token. */
export interface PeerConnection {
  peerId: string;
  card: PeerCard;
  http: OutboundHttp;
  /**
   * An HTTP call to the peer through the outbound client, with its bearer token (a fresh one once
   * after a 401). The answer comes back as it is, whatever its status.
   */
  call(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; signal?: AbortSignal; streaming?: boolean }): Promise<Response>;
}

export type StreamKind = 'stream' | 'resubscribe';

/**
 * One A2A binding of the outbound client. The client picks one per peer from its card
 * (interface-choice.ts); the bridge and the sub-agent call see only the client, never which
 * binding carried a call. Every failure the peer reports is an UPSTREAM_FAILED DomainError whose
 * `details` is a JSON-RPC error object (`{ code, message, data? }`), whatever the binding, so
 * callers tell errors apart by the same codes (-32001 task not found, -32602 invalid params, ...).
 */
export interface A2aTransport {
  send(peer: PeerConnection, params: SendParams, headers: Record<string, string>): Promise<RemoteReply>;
  /** GetTask / CancelTask: the task's id and status. */
  task(peer: PeerConnection, kind: 'get' | 'cancel', taskId: string): Promise<{ id: string; status: RunStatus }>;
  /** Opens SendStreamingMessage / SubscribeToTask; `headers` carries Last-Event-ID on a reconnect. The answer is an event stream, or this throws the peer's refusal. */
  openStream(peer: PeerConnection, kind: StreamKind, params: SendParams | { id: string }, headers: Record<string, string>, signal?: AbortSignal): Promise<Response>;
  /** One SSE frame's data as the stream response it carries (throws an error frame as the peer's error) and its run event (null: nothing to keep). */
  frame(peer: PeerConnection, data: string): { result: Wire; event: RunEvent | null };
}

/** The peer's error, as every transport raises it: `${peerId}: message (code)` with the JSON-RPC error object as details. */
export function peerError(peerId: string, error: { code: number; message: string; data?: unknown }): DomainError {
  return new DomainError('UPSTREAM_FAILED', `${peerId}: ${error.message} (${error.code})`, { details: error });
}

/** A v1.0 SendMessage answer (the JSON-RPC result or the HTTP+JSON body) as a reply. */
export function replyFromV1(peerId: string, result: Wire | undefined): RemoteReply {
  if (result?.task) return { kind: 'task', ...taskFromV1(result.task), ...(isObject(result.task.metadata) ? { metadata: result.task.metadata } : {}) };
  const event = result ? eventFromV1(result) : null;
  if (event?.type !== 'message') throw new DomainError('UPSTREAM_FAILED', `${peerId}: SendMessage answered neither a task nor a message`);
  return { kind: 'message', message: event.message };
}

export const isEventStream = (response: Response) => (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
