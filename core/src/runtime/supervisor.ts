import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DomainError, toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import type { HostAnswer, HostCall, HostCalls, ReportedLlmCall, StepReply, StepRequest } from './protocol.ts';
import { contextFromTraceparent, inContext } from '../telemetry/index.ts';
import { tsxLoaderUrl } from './tsx-loader.ts';

/** Run from core/dist (built), the runtime is built JavaScript too; from core/src, its TypeScript runs through tsx. */
const BUILT = import.meta.url.endsWith('.js');
const RUNTIME_MAIN = fileURLToPath(new URL(BUILT ? './runtime-main.js' : './runtime-main.ts', import.meta.url));
const STEP_TIMEOUT_MS = 10 * 60_000;

export class RuntimeCrashedError extends DomainError {
  override name = 'RuntimeCrashedError';
  constructor() {
    super('UPSTREAM_FAILED', 'The agent runtime stopped while running a step');
  }
}

/** A step's output and the LLM calls the runtime reported for it (none from a runtime that reports none). */
export interface StepOutcome {
  /** Text, or a structured step's value; none when a tool step paused for an approval. */
  output: unknown;
  calls: ReportedLlmCall[];
  /** The peer task that answered a call step, as the runtime reported it (the host checks its shape). */
  remote?: unknown;
}

export interface AgentRuntime {
  runStep(request: Omit<StepRequest, 'type' | 'callId'>): Promise<StepOutcome>;
  pid(): number | undefined;
  restarts(): number;
  stop(): Promise<void>;
}

/**
 * Starts the agent runtime as a child process and keeps it running: on a crash it is started
 * again (backing off up to 5 s) and the steps it was running fail with RuntimeCrashedError,
 * which the executor retries. The runtime's calls back into the host (LLM turns, sub-agent runs)
 * come over the same IPC channel and are answered by `host`: only this child holds the channel,
 * so it needs neither the bridge token nor a connection to the host's HTTP port.
 */
export function startAgentRuntime(options: { host: HostCalls; logger: Logger }): AgentRuntime {
  let child: ChildProcess | undefined;
  let ready: Promise<void> = Promise.resolve();
  let stopping = false;
  let restartCount = 0;
  let backoff = 100;
  /** Set while the runtime is gone and not yet back: `ready` waits for the next one. */
  let respawned: (() => void) | null = null;
  let respawnTimer: NodeJS.Timeout | undefined;
  const lost = () => {
    if (stopping || respawned) return;
    ready = new Promise<void>((resolve) => (respawned = resolve));
  };
  const pending = new Map<string, { resolve: (outcome: StepOutcome) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();

  const spawn = () => {
    const current = fork(RUNTIME_MAIN, [], {
      // tsx resolved from core itself, so the runtime starts whatever the host's working directory.
      execArgv: BUILT ? [] : ['--import', tsxLoaderUrl()],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: process.env.NODE_ENV },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = current;
    ready = new Promise<void>((resolve) => {
      const onReady = (message: { type?: string }) => {
        if (message?.type === 'ready') {
          current.off('message', onReady);
          backoff = 100;
          options.logger.info(`agent runtime ready (pid ${current.pid})`, { pid: current.pid });
          resolve();
        }
      };
      current.on('message', onReady);
    });
    // The runtime's calls into the host stop when it does: their work is nobody's any more.
    const calls = new AbortController();
    current.on('message', (message: HostCall) => {
      if (message?.type !== 'host-call') return;
      const answer = (reply: HostAnswer) => {
        if (current.connected) current.send(reply, () => undefined);
      };
      // In the trace of the step that made the call (its context travelled with the step and back).
      inContext(contextFromTraceparent(message.traceparent), () => answerHostCall(options.host, message, calls.signal)).then(
        (value) => answer({ type: 'host-answer', callId: message.callId, value }),
        (error: unknown) => answer({ type: 'host-answer', callId: message.callId, error: toDomainError(error, options.logger).toPublicJSON().message }),
      );
    });
    current.on('message', (reply: StepReply) => {
      if (reply?.type !== 'result' && reply?.type !== 'error') return;
      const waiter = pending.get(reply.callId);
      if (!waiter) return;
      pending.delete(reply.callId);
      clearTimeout(waiter.timer);
      if (reply.type === 'result') waiter.resolve({ output: reply.output, calls: Array.isArray(reply.calls) ? reply.calls : [], ...(reply.remote ? { remote: reply.remote } : {}) });
      else waiter.reject(new DomainError('UPSTREAM_FAILED', reply.message));
    });
    // A send to a child that just died fails with EPIPE on the child process object: without a
    // listener that would take the web process down. The exit handler below fails its steps.
    current.on('error', (error) => {
      options.logger.warn('agent runtime channel error', { error, pid: current.pid });
      lost();
    });
    // The channel closes before the exit is reported: steps asked for meanwhile wait for the next runtime.
    current.once('disconnect', lost);
    current.once('exit', (code, signal) => {
      lost();
      calls.abort();
      for (const [callId, waiter] of pending) {
        clearTimeout(waiter.timer);
        waiter.reject(new RuntimeCrashedError());
        pending.delete(callId);
      }
      if (stopping) return;
      restartCount++;
      options.logger.warn(`agent runtime exited (${signal ?? code}); restarting in ${backoff} ms`, { code, signal });
      const delay = backoff;
      backoff = Math.min(backoff * 2, 5_000);
      respawnTimer = setTimeout(() => {
        if (stopping) return;
        void spawn().then(() => {
          const wake = respawned;
          respawned = null;
          wake?.();
        });
      }, delay);
    });
    return ready;
  };
  spawn();

  return {
    async runStep(request) {
      await ready;
      let target = child;
      if (!target?.connected) {
        // Gone before its exit was reported: wait for the next runtime.
        lost();
        await ready;
        target = child;
        if (!target?.connected) throw new RuntimeCrashedError();
      }
      const callId = randomUUID();
      return new Promise<StepOutcome>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(callId);
          reject(new DomainError('UPSTREAM_FAILED', 'The agent step timed out'));
        }, STEP_TIMEOUT_MS);
        pending.set(callId, { resolve, reject, timer });
        target.send({ type: 'step', callId, ...request } satisfies StepRequest, (error) => {
          // The runtime died between the check above and the send: the step is retried like any crash.
          if (!error || !pending.delete(callId)) return;
          clearTimeout(timer);
          lost();
          reject(new RuntimeCrashedError());
        });
      });
    },
    pid: () => child?.pid,
    restarts: () => restartCount,
    async stop() {
      stopping = true;
      clearTimeout(respawnTimer);
      const current = child;
      // A child killed by a signal has no exit code, only a signal code.
      if (!current || current.exitCode !== null || current.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        current.once('exit', () => resolve());
        current.kill('SIGTERM');
      });
    },
  };
}

function answerHostCall(host: HostCalls, call: HostCall, signal: AbortSignal): Promise<unknown> {
  if (typeof call.body !== 'string') return Promise.reject(new DomainError('BAD_REQUEST', 'The body must be JSON'));
  if (call.target?.kind === 'llm') return host.llm(call.body, signal);
  if (call.target?.kind === 'agent') return host.agent(String(call.target.vendor), String(call.target.slug), call.body, signal);
  if (call.target?.kind === 'round') return host.round(String(call.target.handle), call.body);
  if (call.target?.kind === 'tool') return host.tool(String(call.target.handle), call.body);
  return Promise.reject(new DomainError('BAD_REQUEST', 'Unknown host call'));
}
