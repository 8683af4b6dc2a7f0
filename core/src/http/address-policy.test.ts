import { describe, expect, it } from 'vitest';
import { isNonPublicAddress } from './address-policy.ts';

describe('the outbound address policy', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a00:1',
    '2002:c0a8:101::1', '[::1]', 'not-an-ip',
    // IPv4-compatible (::/96, deprecated; some stacks still route it to the embedded IPv4 address) and site-local (fec0::/10)
    '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::8.8.8.8', 'fec0::1', 'feff:ffff::1',
  ])('refuses %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['1.1.1.1', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1'])('allows %s', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });
});
