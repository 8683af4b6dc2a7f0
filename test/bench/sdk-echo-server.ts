/**
 * The @a2a-js/sdk 1.x server with its in-memory task store and an echo executor, run as a
 * process of its own (benches compare the service with it without sharing an event loop):
 * `tsx test/bench/sdk-echo-server.ts` prints its JSON-RPC URL as the first line of stdout.
 * `startSdkEchoServer()` starts that process and stops it.
 */
import { spawn } from 'node:child_process';
import type { AgentCard, Part } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

export async function startSdkEchoServer(): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(path.join(path.dirname(SELF), '../../node_modules/.bin/tsx'), [SELF], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`the SDK server exited (${code}) before it listened`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The SDK server with the echo executor, listening on a free loopback port in this process. */
export async function listenSdkEcho(): Promise<{ url: string; server: Server }> {
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
  const { jsonRpcHandler, UserBuilder } = await import('@a2a-js/sdk/server/express');
  const { Role, TaskState } = await import('@a2a-js/sdk');
  const { default: express } = await import('express');
  const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
  const echo: AgentExecutor = {
    async execute(context, bus) {
      const text = context.userMessage.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: new Date().toISOString(), message: { messageId: randomUUID(), contextId: context.contextId, taskId: context.taskId, role: Role.ROLE_AGENT, parts: [textPart(`[scripted] ${text}`)], metadata: undefined, extensions: [], referenceTaskIds: [] } },
          history: [context.userMessage],
          artifacts: [{ artifactId: randomUUID(), name: 'answer', description: '', parts: [textPart(`[scripted] ${text}`)], metadata: undefined, extensions: [] }],
          metadata: undefined,
        }),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
  const card: AgentCard = {
    name: 'sdk', description: 'echo', supportedInterfaces: [], provider: undefined, version: '1', documentationUrl: undefined, iconUrl: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [], signatures: [],
  };
  const app = express();
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: new DefaultRequestHandler(card, new InMemoryTaskStore(), echo), userBuilder: UserBuilder.noAuthentication }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/jsonrpc`;
  card.supportedInterfaces = [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }];
  return { url, server };
}

async function serve(): Promise<void> {
  const { url, server } = await listenSdkEcho();
  process.stdout.write(`${url}\n`);
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (process.argv[1] === SELF) await serve();
