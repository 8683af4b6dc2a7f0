import type { RemoteBridge, RemotePeers } from '../a2a/client/index.ts';
import { createActorNames } from '../auth/index.ts';
import type { FeatureFlags, ServiceConfig } from '../config/index.ts';
import type { ConnectorInstances } from '../connectors/index.ts';
import type { Models } from '../db/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import { createOverview } from '../overview/index.ts';
import type { RegistryService } from '../registry/index.ts';
import type { EventLog, RunExecutor, RunStore } from '../runs/index.ts';
import type { Settings } from '../settings/index.ts';
import type { WidgetKeys } from '../widget/index.ts';
import { createAnswerPause } from './answer-pause.ts';
import { createDefaultAgent } from './default-agent.ts';
import { createListRuns } from './list-runs.ts';
import { createFollowRun, createReadRun, createReadRunTimeline } from './read-run.ts';
import { createStartRun } from './start-run.ts';
import { createSystemInfo } from './system-info.ts';
import { cancelAnyRun, createCancelRun } from './cancel-run.ts';
import { createListWidgetSettings } from './widget-settings.ts';

export { createAnswerPause, type AnswerPause, type AnswerPauseDeps } from './answer-pause.ts';
export { cancelAnyRun, createCancelRun } from './cancel-run.ts';
export { createDefaultAgent, type DefaultAgent } from './default-agent.ts';
export { createListRuns, type ListedRun, type ListRuns, type ListRunsOptions } from './list-runs.ts';
export { createFollowRun, createReadRun, createReadRunTimeline, TIMELINE_PAGE, type FollowRun, type ReadRun, type ReadRunTimeline, type RunFeedItem, type RunTimelinePage, type ShownEvent, type ShownRun } from './read-run.ts';
export { createStartRun, textMessage, type StartedRun, type StartRun, type StartRunDeps, type StartRunInput } from './start-run.ts';
export { createSystemInfo, type SystemInfo, type SystemInfoDeps } from './system-info.ts';
export { createListWidgetSettings } from './widget-settings.ts';

export interface UseCaseDeps {
  models: Models;
  config: ServiceConfig;
  version: string;
  databaseServer: { kind: string; description: string };
  card: () => Promise<{ skills: { id: string }[] }>;
  flags: () => Promise<FeatureFlags>;
  runs: RunStore;
  eventLog: EventLog;
  executor: RunExecutor;
  remote: RemoteBridge;
  peers: Pick<RemotePeers, 'get'>;
  settings: Settings;
  registry: RegistryService;
  llm: LlmProvider;
  connectorInstances: ConnectorInstances;
  widgetKeys: WidgetKeys;
}

/**
 * What callers do with the service, beyond one call of one capability: each is the one way to do
 * it, whoever calls (tRPC for the admin UI, inbound A2A, the AG-UI resume). Transports parse
 * and authenticate, then make one call here; the checks of who may do what are in here.
 */
export function createUseCases(deps: UseCaseDeps) {
  return {
    runs: {
      start: createStartRun(deps),
      answer: createAnswerPause(deps),
      cancel: createCancelRun(deps),
      /** Cancels by id without an access check: for the A2A seam, which checked the caller. */
      cancelById: cancelAnyRun(deps),
      list: createListRuns({ runs: deps.runs, actorNames: createActorNames(deps.models) }),
      read: createReadRun(deps),
      timeline: createReadRunTimeline({ ...deps, actorNames: createActorNames(deps.models), traceUiUrl: deps.config.traceUiUrl }),
      follow: createFollowRun(deps),
    },
    systemInfo: createSystemInfo({ ...deps, registrySettings: deps.registry.settings.get, status: createOverview(deps.models) }),
    defaultAgent: createDefaultAgent(deps),
    widgetSettings: createListWidgetSettings({ instances: deps.connectorInstances, widgetKeys: deps.widgetKeys }),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
