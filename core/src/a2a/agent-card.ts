import type { ExtensionReader } from '../extensions/index.ts';
import { json } from '../http/index.ts';
import { A2A_PROTOCOL_VERSION } from './compat/v03/protocol.ts';
import { AGUI_EXTENSION_URI } from './agui.ts';
import { TOOL_CALLS_EXTENSION } from './tool-details.ts';

export const A2A_PATH = '/api/a2a';

/**
 * The AgentCard: exactly the spec's fields (name, description, url, version, capabilities,
 * authentication.tokenEndpoint, skills with every listed field), plus the A2A v0.3 fields that
 * reference clients read. One skill per active published or installed agent on this host.
 */
export async function buildAgentCard(deps: {
  extensions: ExtensionReader;
  baseUrl: string;
  productName: string;
  version: string;
  tokenEndpointPath: string;
  aguiExternalEnabled?: boolean;
}) {
  const tokenEndpoint = `${deps.baseUrl}${deps.tokenEndpointPath}`;
  const templates = await deps.extensions.activeTemplates();
  const skills = templates.map(({ compiled }) => ({
    id: compiled.card.id,
    name: compiled.card.name,
    description: compiled.card.description,
    tags: compiled.card.tags,
    inputModes: compiled.card.inputModes,
    outputModes: compiled.card.outputModes,
    toolName: compiled.toolName,
    packageName: compiled.packageName,
    operativeVersion: compiled.operativeVersion,
    supportedVersions: compiled.supportedVersions,
    hitlScreens: compiled.hitlScreens.map(({ id, schema }) => ({ id, schema })),
    agentDependencies: compiled.agentDependencies,
    type: compiled.type,
  }));
  return {
    name: deps.productName,
    description: `${deps.productName}: ${skills.length} agent${skills.length === 1 ? '' : 's'} callable over A2A (JSON-RPC 2.0).`,
    url: `${deps.baseUrl}${A2A_PATH}`,
    version: deps.version,
    capabilities: {
      streaming: true,
      pushNotifications: true,
      stateTransitionHistory: true,
      extensions: [TOOL_CALLS_EXTENSION, ...(deps.aguiExternalEnabled ? [{ uri: AGUI_EXTENSION_URI, description: 'AG-UI events in metadata.agui of each streamed event; request it with the A2A-Extensions header', required: false }] : [])],
    },
    authentication: { tokenEndpoint, schemes: ['oauth2-client-credentials'] },
    skills,
    protocolVersion: A2A_PROTOCOL_VERSION,
    preferredTransport: 'JSONRPC',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    securitySchemes: { oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: tokenEndpoint, scopes: {} } } } },
    security: [{ oauth2: [] }],
  };
}

export type AgentCard = Awaited<ReturnType<typeof buildAgentCard>>;

const CARD_HEADERS = { 'cache-control': 'public, max-age=60', 'access-control-allow-origin': '*' };

/** `GET /.well-known/agent.json`: the contract's v0.3 card, unauthenticated. */
export function createAgentCardHandler(card: () => Promise<AgentCard>) {
  return async (): Promise<Response> => json(await card(), { headers: CARD_HEADERS });
}

/**
 * `GET /.well-known/agent-card.json` (the v1.0 card) and `GET /a2a/<vendor>/<slug>/.well-known/agent-card.json`
 * (one agent's): unauthenticated; 404 for an agent not on this host.
 */
export function createAgentCardV1Handler(cardV1: (agent: string | null) => Promise<Record<string, unknown> | null>) {
  return async (_request: Request, agent: string | null = null): Promise<Response> => {
    const card = await cardV1(agent);
    return card ? json(card, { headers: CARD_HEADERS }) : json({ error: { code: 'NOT_FOUND', message: `No agent ${agent} on this host` } }, { status: 404 });
  };
}

/** Where one agent is served: `/a2a/<vendor>/<slug>` for `@vendor/slug`. */
export function agentEndpointPath(agent: string): string | null {
  const match = /^@([^/@]+)\/([^/@]+)$/.exec(agent);
  return match ? `/a2a/${encodeURIComponent(match[1]!)}/${encodeURIComponent(match[2]!)}` : null;
}

/**
 * The A2A v1.0 AgentCard (served at `/.well-known/agent-card.json`): the fields of the v1.0
 * `AgentCard` message, plus the v0.3 `url` for older clients that read this path. The JSON-RPC interface is listed
 * for protocol versions 1.0 and 0.3, the HTTP+JSON one (same URL, REST paths under it) for 1.0; OAuth 2.0 client credentials in the v1.0 scheme shape, with
 * the RFC 8414 metadata (token endpoint, jwks_uri) referenced when the service is served over
 * HTTPS (the spec requires TLS for it). With `agent`, the card of that agent alone, at its endpoint.
 * `grpc`: the `host:port` of the gRPC binding while it serves (SERVICE_A2A_GRPC_PORT), listed last
 * (clients that speak several keep their choice); one agent's card names it as the `tenant`.
 */
export function agentCardV1(card: AgentCard, options: { baseUrl: string; agent?: string | null; scopes: Record<string, string>; grpc?: string | null }): Record<string, unknown> {
  const skills = options.agent ? card.skills.filter((skill) => skill.id === options.agent) : card.skills;
  const path = options.agent ? agentEndpointPath(options.agent) : A2A_PATH;
  const url = `${options.baseUrl}${path}`;
  const only = options.agent ? skills[0] : undefined;
  return {
    name: only ? only.name : card.name,
    description: only ? only.description || only.name : card.description,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ...(options.grpc ? [{ url: options.grpc, protocolBinding: 'GRPC', protocolVersion: '1.0', ...(options.agent ? { tenant: options.agent } : {}) }] : []),
    ],
    version: card.version,
    // Read by v0.3 clients and kits that fetch this path (A2A 0.3.0 moved discovery here); v1.0
    // readers ignore both once supportedInterfaces is set. v0.3 clients get the full v0.3 card at agent.json.
    url,
    preferredTransport: 'JSONRPC',
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: card.capabilities.extensions,
    },
    securitySchemes: {
      oauth2: {
        oauth2SecurityScheme: {
          description: 'OAuth 2.0 client credentials: exchange the client id and secret an admin issued for a bearer JWT',
          flows: { clientCredentials: { tokenUrl: card.authentication.tokenEndpoint, scopes: options.scopes } },
          ...(options.baseUrl.startsWith('https://') ? { oauth2MetadataUrl: `${options.baseUrl}/.well-known/oauth-authorization-server` } : {}),
        },
      },
    },
    securityRequirements: [{ schemes: { oauth2: { list: [] } } }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description || skill.name,
      tags: skill.tags?.length ? skill.tags : [skill.type ?? 'agent'],
      ...(skill.inputModes?.length ? { inputModes: skill.inputModes } : {}),
      ...(skill.outputModes?.length ? { outputModes: skill.outputModes } : {}),
    })),
  };
}
