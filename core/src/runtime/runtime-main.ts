/**
 * The agent runtime process. It runs agents' steps and reaches its host only through the
 * bridge routes: LLM turns through /api/llm-bridge, sub-agent calls through
 * /api/a2a/agents/<vendor>/<slug>, both with X-Service-Bridge-Token. Started and supervised by
 * the host (runtime/supervisor.ts) over an IPC channel.
 */
import http from 'node:http';
import { renderTemplate } from '../step-template/index.ts';
import { RUNTIME_ENV, type StepReply, type StepRequest } from './protocol.ts';

const hostUrl = process.env[RUNTIME_ENV.hostUrl];
const bridgeToken = process.env[RUNTIME_ENV.bridgeToken];
if (!hostUrl || !bridgeToken || !process.send) {
  process.stderr.write('the agent runtime must be started by its host (IPC channel, SERVICE_RUNTIME_HOST_URL, SERVICE_BRIDGE_TOKEN)\n');
  process.exit(2);
}

// node:http with kept-alive connections: the runtime calls its host for every step, and undici's
// fetch costs about 0.4 ms more per call than a plain request on this loopback hop.
const agent = new http.Agent({ keepAlive: true });
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

function bridge<T>(path: string, body: unknown): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const request = http.request(new URL(path, hostUrl), {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-service-bridge-token': bridgeToken! },
    }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_REPLY_BYTES) return void response.destroy(new Error(`host answer over ${MAX_REPLY_BYTES} bytes`));
        chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => {
        try {
          const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T & { error?: { message?: string } };
          if ((response.statusCode ?? 500) >= 400) reject(new Error(reply.error?.message ?? `host answered ${response.statusCode}`));
          else resolve(reply);
        } catch {
          reject(new Error(`host answered ${response.statusCode} without JSON`));
        }
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
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
