export { buildAgentCard, agentCardV1, agentEndpointPath, createAgentCardHandler, createAgentCardV1Handler, A2A_PATH, type AgentCard } from './agent-card.ts';
export * as protocolV1 from './protocol-v1.ts';
export { createA2aHandler, MAX_A2A_BODY_BYTES, type A2aServerDeps } from './server.ts';
export { sseFrame, sseResponse, SSE_HEADERS } from './sse.ts';
export { rpcResult, rpcError, parseEnvelope, type JsonRpcId, type JsonRpcRequest } from './jsonrpc.ts';
export * as protocolV03 from './compat/v03/protocol.ts';
export { answerOf, interruptPayload, type InterruptPayload } from './hitl-answer.ts';
export { createAguiResumeHandler } from './agui-resume.ts';
export { AGUI_EXTENSION_URI, toAgui, withAgui } from './agui.ts';
