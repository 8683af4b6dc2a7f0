export { bridgeTokenRefusal, BRIDGE_TOKEN_HEADER } from './bridge-token.ts';
export { createBridgeCalls, type BridgeCalls, createAgentBridgeHandler, createLlmBridgeHandler, type BridgeDeps } from './handlers.ts';
