import { BlockList, isIP } from 'node:net';

/** Addresses that are not on the public internet: loopback, private, link-local, site-local, CGNAT, multicast, reserved. */
const nonPublic = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) nonPublic.addSubnet(prefix, bits, 'ipv4');
// ::/96 holds the unspecified address, loopback and the deprecated IPv4-compatible addresses (::a.b.c.d), which some stacks
// still route to the IPv4 address inside; fec0::/10 is the deprecated site-local range.
for (const [prefix, bits] of [['::', 96], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64]] as const) nonPublic.addSubnet(prefix, bits, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::) or 6to4 (2002::) IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower) ?? /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for an IP address that is loopback, private or otherwise not public (IPv4, IPv6 and IPv4 inside IPv6). */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return nonPublic.check(bare, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(bare);
    return nonPublic.check(bare, 'ipv6') || (inner !== null && nonPublic.check(inner, 'ipv4'));
  }
  return true;
}
