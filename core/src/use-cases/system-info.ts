import { isAdmin, type Actor } from '../auth/index.ts';
import type { FeatureFlags, ServiceConfig } from '../config/index.ts';
import { DomainError } from '../errors/index.ts';
import type { OverviewStatus } from '../overview/index.ts';
import type { RegistryService } from '../registry/index.ts';
import { DEFAULT_AGENT_SETTING, type Settings } from '../settings/index.ts';

export interface SystemInfoDeps {
  config: Pick<ServiceConfig, 'identity' | 'baseUrl' | 'mode' | 'retention'>;
  version: string;
  databaseServer: { kind: string; description: string };
  flags: () => Promise<FeatureFlags>;
  registrySettings: RegistryService['settings']['get'];
  card: () => Promise<{ skills: { id: string }[] }>;
  /** The Overview's live counts. */
  status: () => Promise<OverviewStatus>;
  llm: { name: string; model: string };
  settings: Pick<Settings, 'get'>;
}

/** The Overview page: who this instance is, how it is set up, and its live state. Admins only. */
export function createSystemInfo(deps: SystemInfoDeps) {
  return async function systemInfo(actor: Actor) {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'The system overview is for admins only');
    const { config } = deps;
    const [flags, registry, card, status, chosen] = await Promise.all([deps.flags(), deps.registrySettings(actor), deps.card(), deps.status(), deps.settings.get<string>(DEFAULT_AGENT_SETTING)]);
    const agents = card.skills.map((skill) => skill.id);
    return {
      productName: config.identity.productName,
      vendorScope: config.identity.vendorScope,
      baseUrl: config.baseUrl,
      version: deps.version,
      mode: config.mode,
      database: deps.databaseServer,
      retention: config.retention,
      flags,
      registry,
      agents,
      /** Where an A2A message naming no agent goes: the chosen agent while it is published, else the only one. */
      defaultAgent: chosen && agents.includes(chosen) ? chosen : agents.length === 1 ? agents[0]! : null,
      status,
      llm: { provider: deps.llm.name, model: deps.llm.model },
    };
  };
}

export type SystemInfo = Awaited<ReturnType<ReturnType<typeof createSystemInfo>>>;
