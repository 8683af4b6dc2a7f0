import { randomBytes } from 'node:crypto';
import { loadConfig, type ServiceConfig } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { createServices, type Services } from '../index.ts';
import type { NpmRunner } from '../registry/index.ts';

/** A complete config for tests: nothing generated on disk, fresh secrets each call. */
export function testConfig(overrides: Record<string, string> = {}): ServiceConfig {
  return loadConfig({
    NODE_ENV: 'test',
    SERVICE_BASE_URL: 'http://127.0.0.1:3999',
    SERVICE_VENDOR_SCOPE: '@acme',
    SERVICE_PRODUCT_NAME: 'Acme Agents',
    SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
    SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
    ...overrides,
  });
}

export function testServices(
  database: Database,
  overrides: Record<string, string> = {},
  options: { npm?: NpmRunner } = {},
): Services & { logger: ReturnType<typeof createMemoryLogger> } {
  const logger = createMemoryLogger();
  return Object.assign(createServices({ config: testConfig(overrides), logger, database, ...options }), { logger });
}
