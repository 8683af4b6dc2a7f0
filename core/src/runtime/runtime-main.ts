/**
 * The agent runtime process. It runs agents' steps and reaches its host only over the IPC channel
 * it was started with: LLM turns and sub-agent calls are host calls (protocol.ts), answered by the
 * host's bridge calls (bridge/handlers.ts). Started and supervised by the host
 * (runtime/supervisor.ts). It holds no secret and opens no connection to the host.
 */
import { randomUUID } from 'node:crypto';
import { renderTemplate } from '../step-template/index.ts';
import { runToolLoop } from '../tool-loop/index.ts';
import type { HostAnswer, HostCall, ReportedLlmCall, StepReply, StepRequest } from './protocol.ts';

if (!process.send) {
  process.stderr.write('the agent runtime must be started by its host (IPC channel)\n');
  process.exit(2);
}

const waiting = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

function host<T>(target: HostCall['target'], body: unknown, traceparent: string | undefined): Promise<T> {
  const callId = randomUUID();
  return new Promise<T>((resolve, reject) => {
    waiting.set(callId, { resolve: resolve as (value: unknown) => void, reject });
    process.send!({ type: 'host-call', callId, target, body: JSON.stringify(body), ...(traceparent ? { traceparent } : {}) } satisfies HostCall, (error: Error | null) => {
      if (error && waiting.delete(callId)) reject(error);
    });
  });
}

/**
 * A step's output and the LLM calls it made, as the host's answers described them (and the peer
 * task that answered a call step). A step with tools runs its tool loop here; its rounds and calls
 * are the host's (stored there, so a step run again replays them), and their LLM calls are counted
 * there too.
 */
async function runStep({ flow, step, context, stepKey, traceparent, tools }: StepRequest): Promise<{ output: unknown; calls: ReportedLlmCall[]; remote?: unknown }> {
  if (step.kind === 'llm' && tools) {
    const { handle } = tools;
    const result = await runToolLoop(
      { instructions: flow.instructions, prompt: renderTemplate(step.prompt, context), tools: tools.definitions, maxToolRounds: tools.maxToolRounds, ...(tools.respond ? { respond: tools.respond } : {}) },
      {
        round: (round, turn) => host({ kind: 'round', handle }, { round, turn: { ...turn, tools: turn.tools?.map(({ name }) => ({ name })) } }, traceparent),
        call: (round, index, call) => host({ kind: 'tool', handle }, { round, index, call }, traceparent),
      },
    );
    return { output: result.kind === 'answer' ? result.output : null, calls: [] };
  }
  if (step.kind === 'llm') {
    const started = performance.now();
    const result = await host<{ text: string; provider?: string; model?: string; usage?: { inputTokens: number; outputTokens: number } }>({ kind: 'llm' }, {
      messages: [
        { role: 'system', content: flow.instructions },
        { role: 'user', content: renderTemplate(step.prompt, context) },
      ],
    }, traceparent);
    const call = { provider: result.provider ?? 'unknown', model: result.model ?? 'unknown', inputTokens: result.usage?.inputTokens ?? 0, outputTokens: result.usage?.outputTokens ?? 0, durationMs: Math.round(performance.now() - started) };
    return { output: result.text, calls: [call] };
  }
  const [vendor, slug] = step.agent.slice(1).split('/');
  const { output, calls, remote } = await host<{ output: string; calls?: ReportedLlmCall[]; remote?: unknown }>({ kind: 'agent', vendor: vendor!, slug: slug! }, { input: renderTemplate(step.input, context), stepKey }, traceparent);
  return { output, calls: calls ?? [], ...(remote ? { remote } : {}) };
}

process.on('message', (message: StepRequest | HostAnswer) => {
  if (message?.type === 'host-answer') {
    const waiter = waiting.get(message.callId);
    if (!waiter) return;
    waiting.delete(message.callId);
    if ('error' in message) waiter.reject(new Error(message.error));
    else waiter.resolve(message.value);
    return;
  }
  if (message?.type !== 'step') return;
  runStep(message).then(
    ({ output, calls, remote }) => process.send!({ type: 'result', callId: message.callId, output, calls, ...(remote ? { remote } : {}) } satisfies StepReply),
    (error: unknown) => process.send!({ type: 'error', callId: message.callId, message: error instanceof Error ? error.message : String(error) } satisfies StepReply),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
