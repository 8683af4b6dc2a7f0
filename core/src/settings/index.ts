export { createSettings, DEFAULT_AGENT_SETTING, type Settings } from './settings.ts';
export { createFeatureFlagStore, FEATURE_FLAGS_SETTING, FEATURE_FLAG_NAMES, type FeatureFlagName, type FeatureFlagStore } from './feature-flags.ts';
