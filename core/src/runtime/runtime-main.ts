/**
 * The agent runtime process. It runs agents' steps and reaches its host only through the
 * bridge routes: LLM turns through /api/llm-bridge, sub-agent calls through
 * /api/a2a/agents/<vendor>/<slug>, both with X-Service-Bridge-Token. Started and supervised by
 * the host (runtime/supervisor.ts) over an IPC channel.
 */
import { renderTemplate } from '../runs/template.ts';
import { RUNTIME_ENV, type StepReply, type StepRequest } from './protocol.ts';

const hostUrl = process.env[RUNTIME_ENV.hostUrl];
const bridgeToken = process.env[RUNTIME_ENV.bridgeToken];
if (!hostUrl || !bridgeToken || !process.send) {
  process.stderr.write('the agent runtime must be started by its host (IPC channel, SERVICE_RUNTIME_HOST_URL, SERVICE_BRIDGE_TOKEN)\n');
  process.exit(2);
}

async function bridge<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${hostUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-bridge-token': bridgeToken! },
    body: JSON.stringify(body),
  });
  const payload = (await response.json()) as T & { error?: { message?: string } };
  if (!response.ok) throw new Error(payload.error?.message ?? `host answered ${response.status}`);
  return payload;
}

async function runStep({ flow, step, context }: StepRequest): Promise<string> {
  if (step.kind === 'llm') {
    const { text } = await bridge<{ text: string }>('/api/llm-bridge', {
      messages: [
        { role: 'system', content: flow.instructions },
        { role: 'user', content: renderTemplate(step.prompt, context) },
      ],
    });
    return text;
  }
  const [vendor, slug] = step.agent.slice(1).split('/');
  const { output } = await bridge<{ output: string }>(`/api/a2a/agents/${encodeURIComponent(vendor!)}/${encodeURIComponent(slug!)}`, { input: renderTemplate(step.input, context) });
  return output;
}

process.on('message', (message: StepRequest) => {
  if (message?.type !== 'step') return;
  runStep(message).then(
    (output) => process.send!({ type: 'result', callId: message.callId, output } satisfies StepReply),
    (error: unknown) => process.send!({ type: 'error', callId: message.callId, message: error instanceof Error ? error.message : String(error) } satisfies StepReply),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
