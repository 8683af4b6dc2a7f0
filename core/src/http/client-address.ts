import { BlockList, isIP } from 'node:net';

/**
 * Which peers may tell us the client's address (`SERVICE_TRUSTED_PROXIES`, ADR 0030): addresses
 * and CIDR blocks, IPv4 or IPv6. Empty by default, when `X-Forwarded-For` is never read.
 */
export interface TrustedProxies {
  readonly empty: boolean;
  has(address: string): boolean;
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as the IPv4 address it is, a zone dropped. */
export function plainAddress(address: string): string {
  const bare = address.trim().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return mapped ? mapped[1]! : bare;
}

/** Why an entry of the list is not an address or a CIDR block, or null when it is one. */
export function trustedProxyProblem(entry: string): string | null {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(plainAddress(address));
  if (!family || extra !== undefined) return `"${entry}" is not an IP address or CIDR block`;
  if (prefix === undefined) return null;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits >= 0 && bits <= (family === 4 ? 32 : 128) ? null : `"${entry}" has an invalid prefix length`;
}

export function createTrustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const problem = trustedProxyProblem(entry);
    if (problem) throw new Error(problem);
    const [address = '', prefix] = entry.split('/');
    const plain = plainAddress(address);
    const family = isIP(plain) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(plain, family);
    else list.addSubnet(plain, Number(prefix), family);
  }
  return {
    empty: entries.length === 0,
    has(address) {
      const plain = plainAddress(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * The client's address: the connection's peer, unless the peer is a trusted proxy; then the
 * right-most `X-Forwarded-For` entry that is not itself a trusted proxy (each proxy appends the
 * address it received the request from, so entries to the left of an untrusted one may be
 * anything the client wrote). When every entry is a trusted proxy, the left-most; a malformed
 * entry stops the walk at the last hop that could be believed. Undefined without a peer (a
 * closed socket).
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string | undefined {
  if (peer === undefined) return undefined;
  let current = plainAddress(peer);
  if (trusted.empty || !trusted.has(current) || forwardedFor === undefined) return current;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((hop) => hop.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i]!);
    if (!isIP(hop)) break;
    current = hop;
    if (!trusted.has(hop)) break;
  }
  return current;
}
