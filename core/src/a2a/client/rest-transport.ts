import { DomainError } from '../../errors/index.ts';
import { A2A_CODE_OF_REASON, A2A_DOMAIN, ERROR_INFO } from '../error-info.ts';
import type { SendParams } from '../operations.ts';
import { eventFromV1, sendParamsToV1, taskFromV1, type Wire } from '../protocol-v1.ts';
import { isEventStream, MAX_REPLY_BYTES, peerError, replyFromV1, type A2aTransport, type PeerConnection } from './transport.ts';

/** google.rpc status names without an A2A reason, as the JSON-RPC codes of the same failure. */
const CODE_OF_STATUS: Record<string, number> = {
  INVALID_ARGUMENT: -32602,
  UNIMPLEMENTED: -32601,
};

/**
 * HTTP statuses a JSON-RPC endpoint answers as such too (no token, no access, no such agent, too
 * many requests, down): without an A2A reason they are reported as the JSON-RPC transport reports
 * them, by the status alone.
 */
const outOfBand = (status: number) => status === 401 || status === 403 || status === 404 || status === 429 || status >= 500;

/**
 * A google.rpc.Status answer (`{ error: { code, status, message, details } }`, spec §11.6) as the
 * JSON-RPC error object the JSON-RPC binding would have answered: the code from the A2A
 * ErrorInfo reason, else from the status name (INVALID_ARGUMENT is invalid params), else
 * internal error. The typed details stay as `data`, as a v1.0 JSON-RPC error carries them.
 * Null when it is not a Status, or (given `httpStatus`) an out-of-band answer without a reason.
 */
export function rpcErrorOfStatus(status: Wire, httpStatus?: number): { code: number; message: string; data: unknown[] } | null {
  const error = status?.error;
  if (!error || typeof error !== 'object' || typeof error.message !== 'string') return null;
  const details = Array.isArray(error.details) ? (error.details as Wire[]) : [];
  const reason = details.find((detail) => detail?.['@type'] === ERROR_INFO && detail?.domain === A2A_DOMAIN)?.reason;
  const known = (typeof reason === 'string' ? A2A_CODE_OF_REASON[reason] : undefined) ?? CODE_OF_STATUS[String(error.status)];
  if (known === undefined && httpStatus !== undefined && outOfBand(httpStatus)) return null;
  return { code: known ?? -32603, message: error.message.slice(0, 500), data: details };
}

/** The base URL with a binding path under it (the interface URL is the base, spec §11.3); a query on the base stays. */
function at(peer: PeerConnection, path: string): string {
  const url = new URL(peer.card.url);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.toString();
}
const taskPath = (taskId: string, action = '') => `/tasks/${encodeURIComponent(taskId)}${action}`;

/** A call of the binding; a non-2xx answer is read as a google.rpc.Status, or reported by its HTTP status when it is not one. */
async function request(peer: PeerConnection, method: 'GET' | 'POST', path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal; streaming?: boolean } = {}): Promise<Response> {
  const response = await peer.call(at(peer, path), {
    method,
    headers: { accept: init.streaming ? 'text/event-stream' : 'application/json', 'a2a-version': '1.0', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal ? { signal: init.signal } : {}),
    streaming: init.streaming ?? false,
  });
  if (response.ok) return response;
  const status = await peer.http.json<Wire>(response, 64 * 1024, 'A2A error').catch(() => null);
  const error = status ? rpcErrorOfStatus(status, response.status) : null;
  if (error) throw peerError(peer.peerId, error);
  throw new DomainError('UPSTREAM_FAILED', `${peer.peerId}: A2A endpoint answered ${response.status}`);
}

const bodyOf = (peer: PeerConnection, response: Response) => peer.http.json<Wire>(response, MAX_REPLY_BYTES, 'A2A answer');

/** The HTTP+JSON (REST) binding of A2A 1.0: spec §11 paths, bare JSON bodies, SSE streams of bare StreamResponses. */
export const restTransport: A2aTransport = {
  async send(peer, params, headers) {
    return replyFromV1(peer.peerId, await bodyOf(peer, await request(peer, 'POST', '/message:send', { body: sendParamsToV1(params), headers })));
  },

  async task(peer, kind, taskId) {
    const response = kind === 'get' ? await request(peer, 'GET', taskPath(taskId)) : await request(peer, 'POST', taskPath(taskId, ':cancel'), { body: {} });
    return taskFromV1(await bodyOf(peer, response));
  },

  async openStream(peer, kind, params, headers, signal) {
    // Subscribe is POST in the spec's §11.3 table and in the SDK clients (a2a.proto also allows GET).
    const response =
      kind === 'stream'
        ? await request(peer, 'POST', '/message:stream', { body: sendParamsToV1(params as SendParams), headers, ...(signal ? { signal } : {}), streaming: true })
        : await request(peer, 'POST', taskPath((params as { id: string }).id, ':subscribe'), { body: {}, headers, ...(signal ? { signal } : {}), streaming: true });
    if (isEventStream(response)) return response;
    await response.body?.cancel().catch(() => undefined);
    throw new DomainError('UPSTREAM_FAILED', `${peer.peerId}: expected an event stream`);
  },

  frame(peer, data) {
    const result = JSON.parse(data) as Wire;
    // A failure after the stream opened, where a server sends one: a google.rpc.Status frame.
    const error = result && 'error' in result ? rpcErrorOfStatus(result) : null;
    if (error) throw peerError(peer.peerId, error);
    return { result, event: eventFromV1(result) };
  },
};
