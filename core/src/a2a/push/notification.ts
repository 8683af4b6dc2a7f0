import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, type CryptoKey } from 'jose';
import type { VisibleRunEvent } from '../../runs/index.ts';
import { eventTo03 } from '../compat/v03/protocol.ts';
import { streamResponseV1 } from '../protocol-v1.ts';
import type { PushProtocol, PushTarget } from './configs.ts';

/** The `typ` of a notification's JWT: never taken for an access token (those are `at+jwt`). */
export const PUSH_JWT_TYPE = 'a2a-push+jwt';
/** How long a notification's JWT is good for: a receiver refuses a replay after this. */
export const PUSH_JWT_TTL_SECONDS = 300;
export const PUSH_JWT_HEADER = 'x-a2a-notification-jwt';
export const PUSH_TOKEN_HEADER = 'x-a2a-notification-token';
export const PUSH_SEQ_HEADER = 'x-a2a-notification-seq';

/**
 * A run event as the notification body of a config set in `protocol`: in 1.0 a StreamResponse
 * (spec §4.3.3), in 0.3 the bare event (Task, TaskStatusUpdateEvent…), as the SDKs send them.
 */
export function notificationBody(event: VisibleRunEvent, run: { id: string; contextId: string }, protocol: PushProtocol): string {
  return JSON.stringify(protocol === '1.0' ? streamResponseV1(event, run) : eventTo03(event, run));
}

export interface PushSigner {
  /** The service's current signing key (the one its JWKS publishes for OAuth). */
  key(): Promise<{ kid: string; privateKey: CryptoKey; alg: string }>;
  /** The service's canonical origin: the JWT's issuer. */
  issuer(): string;
}

/**
 * The headers of one delivery. Every notification carries a JWT signed with the service's own
 * key (verifiable with its JWKS, `kid` in the header): issuer the service, audience the webhook
 * URL, `taskId`, `configId`, `seq` and `request_body_sha256` (hex SHA-256 of the exact body), so
 * a receiver can tell it came from this service, was meant for it, and was not altered. The
 * config's own credentials go in `Authorization` as the spec says (else the JWT does, as a
 * bearer token), its token in `X-A2A-Notification-Token`.
 */
export async function notificationHeaders(target: PushTarget, seq: number, body: string, signer: PushSigner): Promise<Record<string, string>> {
  const { kid, privateKey, alg } = await signer.key();
  const jwt = await new SignJWT({ taskId: target.runId, configId: target.configId, seq, request_body_sha256: createHash('sha256').update(body).digest('hex') })
    .setProtectedHeader({ alg, kid, typ: PUSH_JWT_TYPE })
    .setIssuer(signer.issuer())
    .setAudience(target.url)
    .setIssuedAt()
    .setExpirationTime(`${PUSH_JWT_TTL_SECONDS}s`)
    .setJti(randomBytes(12).toString('base64url'))
    .sign(privateKey);
  return {
    'content-type': target.protocol === '1.0' ? 'application/a2a+json' : 'application/json',
    authorization: target.authorization ?? `Bearer ${jwt}`,
    [PUSH_JWT_HEADER]: jwt,
    [PUSH_SEQ_HEADER]: String(seq),
    ...(target.token ? { [PUSH_TOKEN_HEADER]: target.token } : {}),
  };
}
