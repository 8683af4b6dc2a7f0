import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, type LogRecord } from '../log/index.ts';
import { startAgentRuntime, type AgentRuntime } from './supervisor.ts';

const token = 'bridge-token-for-the-supervisor-test-0123456789';
let host: http.Server;
let runtime: AgentRuntime;
/** The supervisor's log, and a wait for a line as it is logged. */
const listeners = new Set<(record: LogRecord) => void>();
const logger = createLogger({ level: 'debug', sink: (record) => listeners.forEach((listener) => listener(record)) });
const logged = (match: RegExp) => new Promise<LogRecord>((resolve) => listeners.add((record) => void (match.test(record.message) && resolve(record))));

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

  it('stops at once when its runtime was killed by a signal (an exit with no code), and starts no other', async () => {
    const killed = runtime.pid()!;
    // The restart the exit schedules runs on a fake clock, so whether stop() cancels it is seen, not raced.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // Logged by the exit handler as it schedules the restart: the runtime is gone and none is back yet.
      const exited = logged(/^agent runtime exited \(SIGKILL\)/);
      process.kill(killed, 'SIGKILL');
      await exited;
      await expect(runtime.stop()).resolves.toBeUndefined();
      vi.runAllTimers();
      expect(runtime.pid()).toBe(killed);
    } finally {
      vi.useRealTimers();
    }
    expect(() => process.kill(killed, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});
