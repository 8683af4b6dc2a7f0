import { randomUUID } from 'node:crypto';
import { DomainError } from '../../errors/index.ts';
import { eventFrom03, messageTo03, replyFrom03 } from '../compat/v03/protocol.ts';
import type { SendParams } from '../operations.ts';
import { eventFromV1, sendParamsToV1, taskFromV1, type Wire } from '../protocol-v1.ts';
import { isEventStream, MAX_REPLY_BYTES, peerError, replyFromV1, type A2aTransport, type PeerConnection } from './transport.ts';

/** The message in the peer's protocol version. */
const sendParamsTo03 = (params: SendParams) => ({ message: messageTo03(params.message), ...(params.metadata ? { metadata: params.metadata } : {}) });

const METHODS = {
  '1.0': { send: 'SendMessage', stream: 'SendStreamingMessage', resubscribe: 'SubscribeToTask', get: 'GetTask', cancel: 'CancelTask' },
  '0.3': { send: 'message/send', stream: 'message/stream', resubscribe: 'tasks/resubscribe', get: 'tasks/get', cancel: 'tasks/cancel' },
} as const;

type RpcPayload = { result?: Wire; error?: { code: number; message: string; data?: unknown } };

function resultOf(peerId: string, payload: RpcPayload): Wire {
  if (payload?.error) throw peerError(peerId, payload.error);
  return payload?.result as Wire;
}

/** POSTs one JSON-RPC call to the card's URL; a non-2xx answer is the endpoint's failure, not a JSON-RPC error. */
async function post(peer: PeerConnection, method: string, params: unknown, headers: Record<string, string> = {}, signal?: AbortSignal, streaming = false): Promise<Response> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params });
  const response = await peer.call(peer.card.url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': peer.card.protocol, ...headers }, body, ...(signal ? { signal } : {}), streaming });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new DomainError('UPSTREAM_FAILED', `${peer.peerId}: A2A endpoint answered ${response.status}`);
  }
  return response;
}

const answerOf = async (peer: PeerConnection, response: Response) => resultOf(peer.peerId, await peer.http.json<RpcPayload>(response, MAX_REPLY_BYTES, 'A2A answer'));

/** The JSON-RPC binding, in A2A 1.0 (`SendMessage`, ...) or 0.3 (`message/send`, ...) as the chosen interface says. */
export const jsonRpcTransport: A2aTransport = {
  async send(peer, params, headers) {
    const v1 = peer.card.protocol === '1.0';
    const response = await post(peer, METHODS[peer.card.protocol].send, v1 ? sendParamsToV1(params) : sendParamsTo03(params), headers);
    const result = await answerOf(peer, response);
    if (v1) return replyFromV1(peer.peerId, result);
    const reply = replyFrom03(result);
    if (!reply) throw new DomainError('UPSTREAM_FAILED', `${peer.peerId}: message/send answered neither a task nor a message`);
    return reply;
  },

  async task(peer, kind, taskId) {
    const method = METHODS[peer.card.protocol][kind];
    const result = await answerOf(peer, await post(peer, method, { id: taskId }));
    if (peer.card.protocol === '1.0') return taskFromV1(result);
    const reply = replyFrom03(result);
    if (reply?.kind !== 'task') throw new DomainError('UPSTREAM_FAILED', `${peer.peerId}: ${method} answered no task`);
    return { id: reply.id, status: reply.status };
  },

  async openStream(peer, kind, params, headers, signal) {
    const v1 = peer.card.protocol === '1.0';
    const body = kind === 'resubscribe' ? params : v1 ? sendParamsToV1(params as SendParams) : sendParamsTo03(params as SendParams);
    const response = await post(peer, METHODS[peer.card.protocol][kind], body, headers, signal, true);
    if (isEventStream(response)) return response;
    // A refusal comes as one JSON-RPC answer instead of a stream.
    await answerOf(peer, response);
    throw new DomainError('UPSTREAM_FAILED', `${peer.peerId}: expected an event stream`);
  },

  frame(peer, data) {
    const result = resultOf(peer.peerId, JSON.parse(data) as RpcPayload);
    return { result, event: peer.card.protocol === '1.0' ? eventFromV1(result) : eventFrom03(result) };
  },
};
