// Fixture for the bypass scan: a module that skips the visibility filter in both ways.
import { loadDeploymentRegistryConfig } from '../registry/deployment-config.ts';

export async function everything(models: any, actor: any) {
  const config = await loadDeploymentRegistryConfig(actor, models);
  return { config, rows: await models.Extension.find({}) };
}

export const peek = (destinations: any) => destinations.openTokens('public');
