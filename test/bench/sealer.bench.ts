import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { bench, describe } from 'vitest';
import { createSealer } from '@service/core/crypto';

/**
 * Opening a sealed secret against a bare AES-256-GCM decrypt of the same bytes, side by side in
 * one process: the ratio is the cost of the envelope (parsing, key lookup, AAD), not the machine.
 */
const key = randomBytes(32);
const sealer = createSealer({ current: key, previous: [randomBytes(32), randomBytes(32)] });
const label = 'destination.bench.publish-token';
const secret = 'npm_' + randomBytes(24).toString('base64url');
const sealed = sealer.seal(secret, label);

const iv = randomBytes(12);
const cipher = createCipheriv('aes-256-gcm', key, iv);
const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
const tag = cipher.getAuthTag();

describe('open a sealed secret', () => {
  bench('baseline: raw AES-256-GCM decrypt', () => {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  });
  bench('sealer.open', () => {
    sealer.open(sealed, label);
  });
});
