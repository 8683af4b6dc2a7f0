export { bridgeTokenRefusal, BRIDGE_TOKEN_HEADER } from './bridge-token.ts';
export { createAgentBridgeHandler, createLlmBridgeHandler, type BridgeDeps } from './handlers.ts';
