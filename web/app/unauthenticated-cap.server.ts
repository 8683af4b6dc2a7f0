import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOKEN_ENDPOINT_PATH } from '@service/core/auth/oauth';
import { BRIDGE_TOKEN_HEADER } from '@service/core/bridge';
import type { ServiceConfig } from '@service/core/config';
import type { Logger } from '@service/core/log';
import { sessionCookie } from './auth/session-cookie.server.ts';
import { BASE_SECURITY_HEADERS } from './http-security.server.ts';

/**
 * How many requests without credentials one address may have sending their bodies at once
 * (docs/operations.md, "Connection limits": why this number).
 */
export const MAX_UNAUTHENTICATED_BODIES_PER_ADDRESS = 32;

/** Whether a request has a body (RFC 9112 §6.3): only those can be held open by sending it slowly. */
export function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * What one client is counted as: an IPv4 address as it is, an IPv6 one by its /64, the block a
 * single host or home is usually given (counting each of its addresses would be no cap at all).
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1]!;
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * A seam route's credential: a bearer token or the runtime's bridge token. Every seam route that
 * reads a body checks these before it does, so a made-up one buys a quick 401 (after which the
 * rest of the body is dropped for at most 5 s), not a held connection. Not on the token
 * endpoint, which reads its body, where a client's secret may be, first.
 */
export function presentsHeaderCredential(req: IncomingMessage, path: string): boolean {
  if (path === TOKEN_ENDPOINT_PATH) return false;
  return /^bearer\s/i.test(req.headers.authorization ?? '') || req.headers[BRIDGE_TOKEN_HEADER] !== undefined;
}

/**
 * The admin UI's credential: a session cookie bearing this service's signature. Its presence is
 * not enough: sign-in reads its body before anything else, so a made-up cookie would let any
 * client past the cap there. Whether the session is still valid is checked later, by the route.
 */
export async function presentsSignedSession(req: IncomingMessage, config: ServiceConfig): Promise<boolean> {
  const header = req.headers.cookie;
  const cookie = sessionCookie(config);
  if (!header?.includes(`${cookie.name}=`)) return false;
  try {
    return typeof (await cookie.parse(header)) === 'string';
  } catch {
    return false;
  }
}

export interface UnauthenticatedCap {
  /**
   * Counts a request without credentials against its address while its body is arriving (until
   * it has all been received or the connection closes). Past the cap: 429, the connection is
   * closed, and false. A request without a body always passes.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createUnauthenticatedCap(options: { perAddress: number; logger: Logger; addressOf?: (req: IncomingMessage) => string | undefined }): UnauthenticatedCap {
  const addressOf = options.addressOf ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  const inFlight = new Map<string, Set<IncomingMessage>>();
  /** Addresses at their cap since they were last below it: logged once per episode, not per refusal. */
  const atCap = new Set<string>();

  return {
    admit(req, res) {
      const address = carriesBody(req) ? addressOf(req) : undefined;
      if (address === undefined) return true;
      const key = addressKey(address);
      const sending = inFlight.get(key) ?? new Set<IncomingMessage>();
      // A body received whole holds nothing open, even while its handler has yet to read it.
      if (sending.size >= options.perAddress) for (const other of sending) if (other.complete) sending.delete(other);
      if (sending.size >= options.perAddress) {
        if (!atCap.has(key)) {
          atCap.add(key);
          options.logger.warn('unauthenticated requests still sending their bodies from one address are at their cap: refusing more with 429', { address: key, cap: options.perAddress });
        }
        res
          .writeHead(429, { ...BASE_SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '5', connection: 'close' })
          .end('Too many unfinished requests from this address; try again shortly\n');
        return false;
      }
      sending.add(req);
      inFlight.set(key, sending);
      const socket = req.socket;
      const release = () => {
        socket.off('close', release);
        sending.delete(req);
        if (sending.size > 0 || inFlight.get(key) !== sending) return;
        inFlight.delete(key);
        atCap.delete(key);
      };
      req.once('end', release).once('close', release);
      socket.once('close', release);
      return true;
    },
  };
}
