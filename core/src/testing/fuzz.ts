import type { Parameters } from 'fast-check';

/**
 * fast-check settings for the seam fuzz tests: a fixed seed (FUZZ_SEED to explore another) and a
 * bounded number of runs (FUZZ_RUNS_SCALE multiplies them), so CI runs the same inputs every time.
 */
export function fuzzParameters(numRuns: number): Parameters<unknown> {
  const seed = Number(process.env.FUZZ_SEED ?? 20261124);
  const scale = Number(process.env.FUZZ_RUNS_SCALE ?? 1);
  return { seed, numRuns: Math.max(1, Math.round(numRuns * scale)), endOnFailure: true };
}

/** Fails instead of hanging: a call that does not settle within `ms` is a finding. */
export async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
