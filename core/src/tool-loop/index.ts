// The tool loop of an LLM step, shared by the agent runtime process and the web process: a leaf
// (errors and LLM types only), so the runtime's start-up loads little.
export { runToolLoop, type LoopRound, type ToolLoopHost, type ToolLoopResult, type ToolLoopStep, type ToolOutcome } from './tool-loop.ts';
