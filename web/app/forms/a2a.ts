import { z } from 'zod';
import { httpUrl, listOf, requiredText, slugId } from './fields.ts';

/** The grants an A2A client may hold (core's A2A_PERMISSIONS; a type test keeps them equal). */
export const A2A_PERMISSION_NAMES = ['list', 'read', 'execute'] as const;

export const clientName = requiredText('a name', 100);

export const registerClientForm = z.object({
  intent: z.literal('register'),
  name: clientName,
  allowedAgents: listOf('agents', 200, 200),
  allowedPrimitives: listOf('primitives', 200, 100),
  permissions: z.array(z.enum(A2A_PERMISSION_NAMES)).max(3).default([]),
});

export const defaultAgentForm = z.object({
  intent: z.literal('default-agent'),
  agent: z.string().trim().max(214, 'Use at most 214 characters (an npm package name).').optional(),
});

export const clientActionForm = z.object({
  intent: z.enum(['rotate', 'revoke']),
  clientId: requiredText('the client id', 100),
});

export const peerId = slugId('the peer id');
export const peerName = requiredText('a name', 100);
export const peerBaseUrl = httpUrl('the peer’s base URL');
export const peerClientId = requiredText('the client id the peer issued', 100);
export const peerClientSecret = requiredText('the client secret the peer issued', 500);
export const peerProtocol = z.enum(['auto', '0.3']);

/** Register (or replace) a remote peer; the tRPC procedure `a2a.peers.register` takes the same fields. */
export const registerPeerForm = z.object({
  id: peerId,
  name: peerName,
  baseUrl: peerBaseUrl,
  clientId: peerClientId,
  clientSecret: peerClientSecret,
  protocol: peerProtocol.default('auto'),
});
