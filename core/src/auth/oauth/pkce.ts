import { constantTimeEqual, sha256Url } from '../../crypto/index.ts';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. A challenge is the same alphabet (S256 gives 43). */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export const isPkceValue = (value: string | null | undefined): value is string => typeof value === 'string' && PKCE_VALUE.test(value);

/** True when `verifier` is the one `challenge` was made from with S256 (the only method accepted). */
export function verifiesS256(verifier: string, challenge: string): boolean {
  if (!isPkceValue(verifier)) return false;
  return constantTimeEqual(sha256Url(verifier), challenge);
}
