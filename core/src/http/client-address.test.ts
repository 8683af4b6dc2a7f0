import { describe, expect, it } from 'vitest';
import { clientAddress, createTrustedProxies, trustedProxyProblem } from './client-address.ts';

describe('client address behind trusted proxies (issue 28, item 3)', () => {
  const none = createTrustedProxies([]);
  const proxies = createTrustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);

  it('ignores X-Forwarded-For unless the peer is a trusted proxy', () => {
    expect(clientAddress('198.51.100.7', '203.0.113.9', none)).toBe('198.51.100.7');
    expect(clientAddress('198.51.100.7', '203.0.113.9', proxies)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:198.51.100.7', '203.0.113.9', proxies)).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '203.0.113.9', none)).toBe('127.0.0.1');
  });

  it('takes the right-most entry that is not a trusted proxy, so a spoofed left part is ignored', () => {
    // The client wrote "1.2.3.4" itself; nginx appended the address it saw, 203.0.113.9.
    expect(clientAddress('127.0.0.1', '1.2.3.4, 203.0.113.9', proxies)).toBe('203.0.113.9');
    // Two proxies in the chain: the inner one appended the outer one's address.
    expect(clientAddress('::ffff:127.0.0.1', ['1.2.3.4, 203.0.113.9', '10.1.2.3'], proxies)).toBe('203.0.113.9');
    expect(clientAddress('127.0.0.1', '2001:db8::1, fd00::5', proxies)).toBe('2001:db8::1');
  });

  it('falls back to the last believable hop: every entry trusted, a malformed entry, no header', () => {
    expect(clientAddress('127.0.0.1', '10.0.0.2, 10.0.0.3', proxies)).toBe('10.0.0.2');
    expect(clientAddress('127.0.0.1', '203.0.113.9, not-an-address', proxies)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', 'unknown, 10.0.0.3', proxies)).toBe('10.0.0.3');
    expect(clientAddress('127.0.0.1', undefined, proxies)).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '', proxies)).toBe('127.0.0.1');
    expect(clientAddress(undefined, '203.0.113.9', proxies)).toBeUndefined();
  });

  it('accepts addresses and CIDR blocks, and names what is wrong with anything else', () => {
    expect(['192.0.2.1', '192.0.2.0/24', '::1', '2001:db8::/32', '::ffff:192.0.2.1'].map(trustedProxyProblem)).toEqual([null, null, null, null, null]);
    expect(trustedProxyProblem('nginx')).toMatch(/not an IP address/);
    expect(trustedProxyProblem('192.0.2.0/33')).toMatch(/prefix length/);
    expect(trustedProxyProblem('192.0.2.0/24/1')).toMatch(/not an IP address/);
    expect(() => createTrustedProxies(['10.0.0.0/x'])).toThrow(/prefix length/);
  });
});
