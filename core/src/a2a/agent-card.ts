import type { ExtensionReader } from '../extensions/index.ts';
import { json } from '../http/index.ts';
import { A2A_PROTOCOL_VERSION } from './protocol.ts';
import { AGUI_EXTENSION_URI } from './agui.ts';

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
      pushNotifications: false,
      stateTransitionHistory: true,
      ...(deps.aguiExternalEnabled ? { extensions: [{ uri: AGUI_EXTENSION_URI, description: 'AG-UI events in metadata.agui of each streamed event; request it with the A2A-Extensions header', required: false }] } : {}),
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

/** `GET /.well-known/agent.json` (and `/.well-known/agent-card.json`): unauthenticated. */
export function createAgentCardHandler(card: () => Promise<AgentCard>) {
  return async (): Promise<Response> => json(await card(), { headers: { 'cache-control': 'public, max-age=60', 'access-control-allow-origin': '*' } });
}
