import { z } from 'zod';
import { A2A_PERMISSION_NAMES, clientName, peerBaseUrl, peerClientId, peerClientSecret, peerId, peerName, peerProtocol } from '../schemas/a2a.ts';
import { listOf, requiredText, tooLong } from '../schemas/fields.ts';

/** An agent grant: a package name (`@scope/name`) or `*`; core checks the same. */
const AGENT_GRANT = /^(\*|@[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*)$/;

/** Allowed agents: every entry that is not a package name is named, not only the first. */
const allowedAgents = listOf('agents', 200, 200).superRefine((agents, ctx) => {
  const bad = agents.filter((agent) => !AGENT_GRANT.test(agent));
  if (bad.length) ctx.addIssue({ code: 'custom', message: `Use package names such as @scope/agent, or * for every agent. Not package names: ${bad.join(', ')}.` });
});

export const registerClientForm = z.object({
  intent: z.literal('register'),
  name: clientName,
  allowedAgents,
  allowedPrimitives: listOf('primitives', 200, 100),
  permissions: z.array(z.enum(A2A_PERMISSION_NAMES)).max(3).default([]),
});

/** Change a client's name and grants (the tRPC procedure `a2a.clients.setGrants`). */
export const editClientForm = registerClientForm.extend({
  intent: z.literal('edit'),
  clientId: requiredText('the client id', 100),
});

export const defaultAgentForm = z.object({
  intent: z.literal('default-agent'),
  agent: z.string().trim().max(214, tooLong('an npm package name', 214)).optional(),
});

export const clientActionForm = z.object({
  intent: z.enum(['rotate', 'revoke']),
  clientId: requiredText('the client id', 100),
});

/** Register (or replace) a remote peer; the tRPC procedure `a2a.peers.register` takes the same fields. */
export const registerPeerForm = z.object({
  intent: z.literal('register'),
  id: peerId,
  name: peerName,
  baseUrl: peerBaseUrl,
  clientId: peerClientId,
  clientSecret: peerClientSecret,
  protocol: peerProtocol.default('auto'),
});

/** Change a registered peer: an empty secret keeps the sealed one. */
export const editPeerForm = registerPeerForm.extend({
  intent: z.literal('edit'),
  clientSecret: peerClientSecret.optional(),
});

export const removePeerForm = z.object({
  intent: z.literal('remove'),
  id: peerId,
});
