import type { Actor } from '../auth/index.ts';
import { readFeatureFlags, type FeatureFlags } from '../config/index.ts';
import type { Settings } from './settings.ts';

/** The stored switches, one `settings` document; a switch not stored yet reads from the environment. */
export const FEATURE_FLAGS_SETTING = 'features';

export const FEATURE_FLAG_NAMES = ['a2aHttpEnabled', 'aguiExternalEnabled'] as const satisfies readonly (keyof FeatureFlags)[];
export type FeatureFlagName = (typeof FEATURE_FLAG_NAMES)[number];

/**
 * Runtime switches (A2A over HTTP, the external AG-UI stream): stored in the database, changed by
 * an admin (audited), read per request through the settings' one-second cache, so a change applies
 * at once in the process that made it and within a second in every other, without a restart.
 * `SERVICE_A2A_HTTP_ENABLED` and `SERVICE_AGUI_EXTERNAL_ENABLED` give the value a switch has until
 * it is stored; the first start stores them (`storeInitial`), after which the page decides.
 */
export function createFeatureFlagStore(deps: { settings: Settings; environment?: () => FeatureFlags }) {
  const environment = deps.environment ?? (() => readFeatureFlags());

  async function read(): Promise<FeatureFlags> {
    const stored = (await deps.settings.get<Partial<FeatureFlags>>(FEATURE_FLAGS_SETTING)) ?? {};
    const initial = environment();
    return {
      a2aHttpEnabled: typeof stored.a2aHttpEnabled === 'boolean' ? stored.a2aHttpEnabled : initial.a2aHttpEnabled,
      aguiExternalEnabled: typeof stored.aguiExternalEnabled === 'boolean' ? stored.aguiExternalEnabled : initial.aguiExternalEnabled,
    };
  }

  async function set(actor: Actor, name: FeatureFlagName, value: boolean): Promise<FeatureFlags> {
    const current = await read();
    await deps.settings.set(actor, FEATURE_FLAGS_SETTING, { ...current, [name]: value });
    return { ...current, [name]: value };
  }

  /** Stores the environment's values as the switches' first state, once per database. */
  async function storeInitial(): Promise<boolean> {
    return deps.settings.initialise(FEATURE_FLAGS_SETTING, environment());
  }

  return { read, set, storeInitial };
}

export type FeatureFlagStore = ReturnType<typeof createFeatureFlagStore>;
