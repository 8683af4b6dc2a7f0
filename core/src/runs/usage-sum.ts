import type { RemoteStepTask, RunUsage, StepLlmCall } from './model.ts';

/** `usage` with `calls` added. */
export function addCalls(usage: RunUsage | undefined, calls: readonly StepLlmCall[]): RunUsage | undefined {
  if (calls.length === 0) return usage;
  const sum: RunUsage = { calls: usage?.calls ?? 0, inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0, ...(usage?.costUsd !== undefined ? { costUsd: usage.costUsd } : {}) };
  for (const call of calls) {
    sum.calls++;
    sum.inputTokens += call.inputTokens;
    sum.outputTokens += call.outputTokens;
    if (call.costUsd !== undefined) sum.costUsd = roundUsd((sum.costUsd ?? 0) + call.costUsd);
  }
  return sum;
}

export const roundUsd = (usd: number) => Math.round(usd * 1e8) / 1e8;

const count = (value: unknown, max: number) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.min(Math.round(value), max) : 0);
const name = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : 'unknown');

/**
 * LLM calls as another process reported them (the agent runtime's step reply), kept to the
 * shape and sizes a step event stores: at most 1 000 calls, counts as non-negative integers,
 * costs left out (the host prices calls itself).
 */
export function reportedCalls(value: unknown): StepLlmCall[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, 1_000).map((raw) => {
    const call = (raw ?? {}) as Record<string, unknown>;
    return { provider: name(call.provider), model: name(call.model), inputTokens: count(call.inputTokens, 1e9), outputTokens: count(call.outputTokens, 1e9), durationMs: count(call.durationMs, 864e5) };
  });
}

/**
 * A run's usage as a peer reported it (its task's `metadata.usage`), kept to a usage's shape:
 * counts as non-negative integers, a cost only when it is a non-negative number; null when the
 * peer reported none.
 */
export function reportedUsage(value: unknown): RunUsage | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const usage = value as Record<string, unknown>;
  if (![usage.calls, usage.inputTokens, usage.outputTokens].some((field) => typeof field === 'number')) return null;
  const cost = usage.costUsd;
  return {
    calls: count(usage.calls, 1e9),
    inputTokens: count(usage.inputTokens, 1e12),
    outputTokens: count(usage.outputTokens, 1e12),
    ...(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? { costUsd: roundUsd(Math.min(cost, 1e9)) } : {}),
  };
}

/** The peer task of a call step as another process reported it, kept to its shape; null when it is not one. */
export function reportedRemoteTask(value: unknown): RemoteStepTask | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const { peerId, taskId, usage } = value as Record<string, unknown>;
  if (typeof peerId !== 'string' || typeof taskId !== 'string' || !peerId || !taskId) return null;
  const reported = reportedUsage(usage);
  return { peerId: peerId.slice(0, 200), taskId: taskId.slice(0, 200), ...(reported ? { usage: reported } : {}) };
}
