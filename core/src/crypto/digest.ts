import { createHash } from 'node:crypto';

/**
 * The SHA-256 of a high-entropy secret (a session id, a client secret, a code, a refresh token),
 * base64url: what is stored in its place, so a database read cannot replay it.
 */
export function sha256Url(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
