import type { RunProgress } from './run-store.ts';

/**
 * What callers and agents send (messages, data parts, artifacts, HITL answers, screen schemas)
 * is stored as JSON text, not as nested documents: its keys are theirs to choose, and database
 * servers refuse some (FerretDB: empty keys, dots, a leading `$`), which turned a legal A2A data
 * part into an internal error (found by the seam fuzz tests). The database never queries inside
 * these values. Rows written before this change hold documents; reading accepts both.
 */
export function toStored(value: unknown): string {
  return JSON.stringify(value);
}

export function fromStored<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Progress as stored: the step cursor and the remote link as fields, outputs and the interrupt as JSON text. */
export function storedProgress(progress: RunProgress & { remote?: unknown }): Record<string, unknown> {
  return {
    ...progress,
    ...(progress.outputs !== undefined ? { outputs: toStored(progress.outputs) } : {}),
    ...(progress.interrupt ? { interrupt: toStored(progress.interrupt) } : {}),
  };
}

export function progressFromStored(stored: unknown): RunProgress {
  const row = (stored ?? {}) as Record<string, unknown>;
  return {
    ...row,
    ...(row.outputs !== undefined ? { outputs: fromStored<Record<string, unknown>>(row.outputs) } : {}),
    ...(row.interrupt ? { interrupt: fromStored<RunProgress['interrupt']>(row.interrupt) } : {}),
  } as RunProgress;
}
