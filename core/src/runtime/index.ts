export { startAgentRuntime, RuntimeCrashedError, type AgentRuntime } from './supervisor.ts';
export type { StepRequest, StepReply } from './protocol.ts';
export { tsxLoaderUrl } from './tsx-loader.ts';
