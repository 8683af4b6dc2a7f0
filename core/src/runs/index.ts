export { createEventLog, listKeyOf, LeaseLostError, RunEndedError, type AppendOptions, type EventLog, type StoredEvent, type Tail } from './event-log.ts';
export { callerOf, createRunStore, runKeyId, RUN_LAYOUT, type ListFilter, type RunStore } from './run-store.ts';
export { foldRun, type RunProgress, type RunSummary, type RunView } from './run-view.ts';
export { createRunExecutor, type RemoteAgentCall, type RemoteAnswer, type RunExecutor, type RuntimeStep, type RuntimeStepOutcome, type StepRecorder, type StepRuntime } from './executor.ts';
export { createRunLeases, RUN_LEASE_MS, type HeldLease, type Orphan, type RunLeases } from './leases.ts';
export { fromStored, toStored } from './stored-json.ts';
export { addCalls, reportedCalls, roundUsd } from './usage-sum.ts';
export * from './model.ts';
export { actorLabel, boundedText, buildRunTimeline, namedIn, remoteTask, traceIdOf, traceUrl, type ActorLabel, type BoundedText, type PeerAddress, type RemoteTask, type RunTimeline, type StepUsage, type TimelineEntry } from './run-timeline.ts';
