import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer, SealedSecretError } from './index.ts';

const label = 'destination.abc.publish-token';

describe('sealed secrets', () => {
  const key = randomBytes(32);
  const sealer = createSealer({ current: key });

  it('round-trips and never contains the plaintext', () => {
    const sealed = sealer.seal('npm_secret_token', label);
    expect(sealed).not.toContain('npm_secret_token');
    expect(sealed.startsWith(`sealed.v1.${sealer.currentKeyId}.`)).toBe(true);
    expect(sealer.open(sealed, label)).toBe('npm_secret_token');
  });

  it('uses a fresh IV every time', () => {
    expect(sealer.seal('same', label)).not.toBe(sealer.seal('same', label));
  });

  it('refuses to open under another label', () => {
    const sealed = sealer.seal('x', label);
    expect(() => sealer.open(sealed, 'destination.abc.read-token')).toThrow(SealedSecretError);
    try {
      sealer.open(sealed, 'destination.abc.read-token');
    } catch (error) {
      expect((error as SealedSecretError).code).toBe('SEALED_SECRET_INVALID');
    }
  });

  it('detects a tampered byte anywhere in the body', () => {
    const sealed = sealer.seal('payload', label);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    for (const index of [0, body.length - 1]) {
      const copy = Buffer.from(body);
      copy[index] = copy[index]! ^ 0x01;
      const tampered = [...parts.slice(0, 4), copy.toString('base64url')].join('.');
      expect(() => sealer.open(tampered, label)).toThrowError(expect.objectContaining({ code: 'SEALED_SECRET_INVALID' }));
    }
  });

  it('fails with a named error for an unknown key id and for garbage', () => {
    const other = createSealer({ current: randomBytes(32) });
    const sealed = other.seal('x', label);
    expect(() => sealer.open(sealed, label)).toThrowError(expect.objectContaining({ name: 'SealedSecretError', code: 'SEALED_SECRET_UNKNOWN_KEY' }));
    expect(() => sealer.open('not-sealed', label)).toThrowError(expect.objectContaining({ code: 'SEALED_SECRET_MALFORMED' }));
  });

  it('a forged key id does not open with the real key', () => {
    const previous = randomBytes(32);
    const both = createSealer({ current: key, previous: [previous] });
    const underPrevious = createSealer({ current: previous }).seal('x', label);
    const parts = underPrevious.split('.');
    const forged = [parts[0], parts[1], sealer.currentKeyId, parts[3], parts[4]].join('.');
    expect(() => both.open(forged, label)).toThrowError(expect.objectContaining({ code: 'SEALED_SECRET_INVALID' }));
  });

  it('rotates: old values still open, reseal moves them to the new key', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createSealer({ current: oldKey }).seal('rotate me', label);
    const after = createSealer({ current: newKey, previous: [oldKey] });
    expect(after.needsReseal(before)).toBe(true);
    expect(after.open(before, label)).toBe('rotate me');
    const moved = after.reseal(before, label);
    expect(after.needsReseal(moved)).toBe(false);
    const withoutOld = createSealer({ current: newKey });
    expect(withoutOld.open(moved, label)).toBe('rotate me');
    expect(() => withoutOld.open(before, label)).toThrowError(expect.objectContaining({ code: 'SEALED_SECRET_UNKNOWN_KEY' }));
  });
});
