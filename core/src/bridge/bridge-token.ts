import { constantTimeEqual } from '../crypto/index.ts';
import { json } from '../http/index.ts';

export const BRIDGE_TOKEN_HEADER = 'x-service-bridge-token';

/**
 * The in-instance callback secret: 403 when SERVICE_BRIDGE_TOKEN is unset or the header differs
 * (constant-time), so the routes behind it do not exist for anyone but our own runtime.
 */
export function bridgeTokenRefusal(request: Request, expected: string | undefined): Response | null {
  const given = request.headers.get(BRIDGE_TOKEN_HEADER);
  if (!expected || !given || !constantTimeEqual(given, expected)) {
    return json({ error: { code: 'FORBIDDEN', message: 'Bridge token required' } }, { status: 403 });
  }
  return null;
}
