import { ConfigError, type Env, type ServiceConfig } from '../config/index.ts';
import { keyIdOf } from '../crypto/index.ts';
import type { Models } from '../db/index.ts';

/** What every process of one instance must agree on, recorded by the web service at each start. */
export interface InstanceIdentity {
  /** The issuer and audience of the instance's tokens. */
  baseUrl: string;
  /** The id of the key its secrets are sealed with (never the key). */
  masterKeyId: string;
}

export const INSTANCE_IDENTITY_SETTING = 'instance.identity';

export async function recordInstanceIdentity(models: Models, config: ServiceConfig): Promise<void> {
  const value: InstanceIdentity = { baseUrl: config.baseUrl, masterKeyId: keyIdOf(config.masterKeys.current) };
  await models.Setting.updateOne({ _id: INSTANCE_IDENTITY_SETTING }, { $set: { value } }, { upsert: true });
}

/**
 * For a process that serves beside the web service (the MCP server): takes the service's base URL
 * when SERVICE_BASE_URL is unset, and refuses to start, naming the variable, when its base URL or
 * master key differs from the service's (its tokens would be refused, its sealed secrets unreadable).
 */
export async function agreeWithInstance(models: Models, config: ServiceConfig, env: Env): Promise<{ config: ServiceConfig; identity: InstanceIdentity | null }> {
  const row = await models.Setting.findById(INSTANCE_IDENTITY_SETTING).lean();
  const identity = (row?.value ?? null) as InstanceIdentity | null;
  if (!identity) return { config, identity };
  const issues: { variable: string; reason: string }[] = [];
  const explicitBaseUrl = env.SERVICE_BASE_URL ? config.baseUrl : undefined;
  if (explicitBaseUrl && new URL(explicitBaseUrl).origin !== new URL(identity.baseUrl).origin) {
    issues.push({
      variable: 'SERVICE_BASE_URL',
      reason: `is ${explicitBaseUrl}, but the service runs at ${identity.baseUrl}, so tokens from its token endpoint would be refused: unset it (this server takes the service's) or set it to ${identity.baseUrl}`,
    });
  }
  const ownKeyIds = [config.masterKeys.current, ...config.masterKeys.previous].map(keyIdOf);
  if (!ownKeyIds.includes(identity.masterKeyId)) {
    issues.push({
      variable: 'SERVICE_MASTER_KEY',
      reason: env.SERVICE_MASTER_KEY
        ? `is not the key the service seals its secrets with (key id ${identity.masterKeyId}): set the service's SERVICE_MASTER_KEY`
        : `is unset, and the key this process found in ${config.dataDir} is not the one the service seals its secrets with (key id ${identity.masterKeyId}): point SERVICE_DATA_DIR at the service's data directory, or set the service's SERVICE_MASTER_KEY`,
    });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return { config: explicitBaseUrl ? config : { ...config, baseUrl: identity.baseUrl }, identity };
}
