export { loadConfig, parseEnv, ConfigError, type ServiceConfig, type Env } from './load-config.ts';
export { readFeatureFlags, type FeatureFlags } from './feature-flags.ts';
export { envSchema, decodeKey } from './env-schema.ts';
export { GENERATED_SECRETS_FILE } from './generated-secrets.ts';
