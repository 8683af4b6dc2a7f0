import { systemActor } from '../auth/index.ts';
import type { Services } from '../index.ts';

export const GENERATED_ADMIN_EMAIL = 'admin@service.local';

export interface InitialSignIn {
  email: string;
  password: string;
}

/**
 * The first admin: from SERVICE_ADMIN_EMAIL/SERVICE_ADMIN_PASSWORD when set (created once, never
 * overwritten), else, on the embedded default with no users at all, a generated one whose
 * password is returned so the start can show it once.
 */
export async function ensureInitialAdmin(
  services: Services,
  options: { generateWhenEmpty: boolean; generatePassword: () => string },
): Promise<InitialSignIn | undefined> {
  const { users, audit, logger, config } = services;
  const configured = config.initialAdmin;
  if (configured) {
    const exists = await services.database.models.User.exists({ email: configured.email.toLowerCase() });
    if (!exists) {
      const admin = await users.create({ email: configured.email, password: configured.password, role: 'admin' });
      audit.record(systemActor('boot'), { action: 'user.create', resourceType: 'user', resourceId: admin.id, details: { email: admin.email, role: 'admin', source: 'env' } });
      logger.info(`created admin ${admin.email} from SERVICE_ADMIN_EMAIL`);
    }
    return undefined;
  }
  if (!options.generateWhenEmpty || (await users.count()) > 0) return undefined;
  const password = options.generatePassword();
  const admin = await users.create({ email: GENERATED_ADMIN_EMAIL, password, role: 'admin' });
  audit.record(systemActor('boot'), { action: 'user.create', resourceType: 'user', resourceId: admin.id, details: { email: admin.email, role: 'admin', source: 'generated' } });
  return { email: admin.email, password };
}
