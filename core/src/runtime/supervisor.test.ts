import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { startAgentRuntime, type AgentRuntime } from './supervisor.ts';

const token = 'bridge-token-for-the-supervisor-test-0123456789';
let host: http.Server;
let runtime: AgentRuntime;
const logger = createMemoryLogger();

beforeAll(async () => {
  // The host's LLM bridge, as the runtime calls it.
  host = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.headers['x-service-bridge-token'] !== token) return void res.writeHead(403).end('{}');
      const { messages } = JSON.parse(body) as { messages: { content: string }[] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: `echo: ${messages.at(-1)!.content}` }));
    });
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  runtime = startAgentRuntime({ hostUrl: `http://127.0.0.1:${(host.address() as AddressInfo).port}`, bridgeToken: token, logger });
});

afterAll(async () => {
  await runtime?.stop();
  host?.close();
});

const step = (prompt: string) => runtime.runStep({ flow: { instructions: 'x' }, step: { kind: 'llm', id: 'a', prompt }, context: { input: '', outputs: {} } });

/** As the executor does: a step whose runtime crashed under it is run again, twice at most. */
async function stepWithRetries(prompt: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step(prompt);
    } catch (error) {
      if (attempt >= 2 || (error as Error).name !== 'RuntimeCrashedError') throw error;
    }
  }
}

describe('the agent runtime supervisor', () => {
  it('a step sent as the runtime dies fails as a crash (never an unhandled EPIPE in the host), and its retry reaches the next runtime', async () => {
    expect(await step('first')).toBe('echo: first');
    for (let round = 0; round < 3; round++) {
      const pid = runtime.pid()!;
      process.kill(pid, 'SIGKILL');
      // No wait: the step goes out while the channel dies, before the exit is reported.
      expect(await stepWithRetries(`after kill ${round}`)).toBe(`echo: after kill ${round}`);
      expect(runtime.pid()).not.toBe(pid);
    }
    expect(runtime.restarts()).toBe(3);
  }, 30_000);

  it('stops a runtime that a signal killed without waiting forever', async () => {
    process.kill(runtime.pid()!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await runtime.stop();
  });
});
