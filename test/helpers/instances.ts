import type { Services } from '@service/core';
import { loadExample } from '@service/core/agents';
import type { UiActor } from '@service/core/auth';
import { createMemoryLogger } from '@service/core/log';
import { createNpmRunner, type RegistrySettingsInput } from '@service/core/registry';
import { testServices } from '@service/core/testing';
import type { Database } from '@service/core/db';

export const adminOf = (scope: string): UiActor => ({ type: 'ui', id: `admin${scope.replace('@', '-')}`, email: `admin@${scope.slice(1)}.test`, role: 'admin' });

export interface TestInstance {
  scope: string;
  services: Services & { logger: ReturnType<typeof createMemoryLogger> };
  admin: UiActor;
  /** Every argv the registry code spawned npm with, and what its npm logger wrote. */
  npmArgv: string[][];
  npmLog: ReturnType<typeof createMemoryLogger>;
  /** Compiles an example package into this instance's scope and returns its record. */
  author(example: string): ReturnType<Services['registry']['compile']>;
}

/** One service instance (its own database and vendor scope) whose npm calls are observed. */
export function createInstance(database: Database, scope: string): TestInstance {
  const npmArgv: string[][] = [];
  const npmLog = createMemoryLogger();
  const services = testServices(database, { SERVICE_VENDOR_SCOPE: scope }, { npm: createNpmRunner(npmLog, (argv) => npmArgv.push(argv)) });
  const admin = adminOf(scope);
  return {
    scope,
    services,
    admin,
    npmArgv,
    npmLog,
    author: (example) => services.registry.compile(admin, loadExample(example, scope)),
  };
}

export function registrySettings(input: {
  routingMode: 'scope-based' | 'shared-acl';
  publicUrl: string;
  publicPublishToken?: string | null;
  publicReadToken?: string | null;
  privateId?: string;
  privateUrl?: string;
  privateToken?: string;
}): RegistrySettingsInput {
  const change = (value: string | null | undefined) => (value ? { action: 'replace' as const, value } : { action: 'clear' as const });
  return {
    routingMode: input.routingMode,
    public: { registryUrl: input.publicUrl, publishToken: change(input.publicPublishToken), readToken: change(input.publicReadToken) },
    private: input.privateId && input.privateUrl
      ? { id: input.privateId, registryUrl: input.privateUrl, publishToken: change(input.privateToken), readToken: change(input.privateToken) }
      : null,
  };
}
