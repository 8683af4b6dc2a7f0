export { useTestDatabase, testDatabaseUri, uniqueDatabaseName } from './test-database.ts';
export { testServices, testConfig } from './test-services.ts';
export { fuzzParameters, within } from './fuzz.ts';
export { installExampleAgents } from './example-agents.ts';
export { expectIndexed, expectIndexUsed, NO_SECONDARY_INDEX_ON_FERRETDB1, type ServedByIndex } from './query-plan-assertions.ts';
export { runsLayout1 } from './runs-layout-1.ts';
export { startInProcessPeer, type InProcessPeer } from './in-process-peer.ts';
export { recordSpans } from './recorded-spans.ts';
export { startHttpRecorder, type RecordedRequest } from './http-recorder.ts';
