export { createEventLog, isEndEvent, isFinalEvent, RunEndedError, type EventLog, type StoredEvent } from './event-log.ts';
export { createRunStore, taskOf, type RunStore, type RunView, type RunProgress } from './run-store.ts';
export { createRunExecutor, type RunExecutor } from './executor.ts';
export { renderTemplate } from './template.ts';
export { createRunLeases, RUN_LEASE_MS, type RunLeases } from './leases.ts';
export { moveRunsIntoOneCollection } from './migrate.ts';
