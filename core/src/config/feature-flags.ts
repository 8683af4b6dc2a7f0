import { featureFlagSchema } from './env-schema.ts';
import type { Env } from './load-config.ts';

export interface FeatureFlags {
  a2aHttpEnabled: boolean;
  aguiExternalEnabled: boolean;
}

/**
 * Feature flags are read from the environment at call time, not cached at start-up,
 * so operators (and tests) can flip them without a restart. A malformed value reads as off.
 */
export function readFeatureFlags(env: Env = process.env): FeatureFlags {
  const parsed = featureFlagSchema.safeParse(env);
  const flags = parsed.success ? parsed.data : { SERVICE_A2A_HTTP_ENABLED: false, SERVICE_AGUI_EXTERNAL_ENABLED: false };
  return {
    a2aHttpEnabled: flags.SERVICE_A2A_HTTP_ENABLED,
    aguiExternalEnabled: flags.SERVICE_AGUI_EXTERNAL_ENABLED,
  };
}
