/**
 * The agent runtime process. It runs agents' steps and reaches its host only over the IPC channel
 * it was started with: LLM turns and sub-agent calls are host calls (protocol.ts), answered by the
 * host's bridge calls (bridge/handlers.ts). Started and supervised by the host
 * (runtime/supervisor.ts). It holds no secret and opens no connection to the host.
 */
import { randomUUID } from 'node:crypto';
import { renderTemplate } from '../step-template/index.ts';
import type { HostAnswer, HostCall, StepReply, StepRequest } from './protocol.ts';

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

async function runStep({ flow, step, context, traceparent }: StepRequest): Promise<string> {
  if (step.kind === 'llm') {
    const { text } = await host<{ text: string }>({ kind: 'llm' }, {
      messages: [
        { role: 'system', content: flow.instructions },
        { role: 'user', content: renderTemplate(step.prompt, context) },
      ],
    }, traceparent);
    return text;
  }
  const [vendor, slug] = step.agent.slice(1).split('/');
  const { output } = await host<{ output: string }>({ kind: 'agent', vendor: vendor!, slug: slug! }, { input: renderTemplate(step.input, context) }, traceparent);
  return output;
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
    (output) => process.send!({ type: 'result', callId: message.callId, output } satisfies StepReply),
    (error: unknown) => process.send!({ type: 'error', callId: message.callId, message: error instanceof Error ? error.message : String(error) } satisfies StepReply),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
