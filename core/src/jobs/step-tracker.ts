export type JobStepState = 'pending' | 'running' | 'done' | 'failed' | 'waiting';

/** One step of a background job as the UI lists it. */
export interface JobStep {
  id: string;
  label: string;
  state: JobStepState;
  detail?: string;
}

export interface StepTracker<Id extends string> {
  /** Marks a step and saves the whole list (FerretDB has no positional `$` updates). */
  mark(step: Id, state: JobStepState, detail?: string): Promise<void>;
  /** Marks the step in progress as failed with the reason, without saving. */
  failCurrent(reason: string): void;
  readonly steps: JobStep[];
}

/**
 * Keeps a job's step list in memory and writes it whole on every change; one writer per job,
 * in order, so the stored list is always a state the job passed through. `failed` is told when
 * the job fails (the metrics' job-failure counter).
 */
export function trackSteps<Id extends string>(definitions: readonly { id: Id; label: string }[], save: (steps: JobStep[]) => Promise<unknown>, initial?: JobStep[], failed?: () => void): StepTracker<Id> {
  const steps: JobStep[] = initial ?? definitions.map((s) => ({ id: s.id, label: s.label, state: 'pending' }));
  let current: string | null = null;
  return {
    steps,
    async mark(step, state, detail) {
      current = step;
      const entry = steps.find((s) => s.id === step);
      if (entry) Object.assign(entry, { state, ...(detail ? { detail } : {}) });
      await save(steps);
    },
    failCurrent(reason) {
      const entry = steps.find((s) => s.id === current) ?? steps.find((s) => s.state === 'running' || s.state === 'waiting');
      if (entry) Object.assign(entry, { state: 'failed', detail: reason });
      failed?.();
    },
  };
}

/** Stored steps as plain views. */
export function stepViews(rows: readonly { id: string; label: string; state: string; detail?: string | null }[]): JobStep[] {
  return rows.map((s) => ({ id: s.id, label: s.label, state: s.state as JobStepState, ...(s.detail ? { detail: s.detail } : {}) }));
}
