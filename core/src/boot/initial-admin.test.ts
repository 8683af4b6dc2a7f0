import { describe, expect, it } from 'vitest';
import { testServices, useTestDatabase } from '../testing/index.ts';
import { ensureInitialAdmin, GENERATED_ADMIN_EMAIL } from './index.ts';

const t = useTestDatabase();

describe('first admin', () => {
  it('on an empty embedded instance, generates one admin once and returns its password to show once', async () => {
    const services = testServices(t.db);
    const options = { generateWhenEmpty: true, generatePassword: () => 'generated-password-123' };
    const first = await ensureInitialAdmin(services, options);
    expect(first).toEqual({ email: GENERATED_ADMIN_EMAIL, password: 'generated-password-123' });
    await expect(services.users.verifyCredentials(GENERATED_ADMIN_EMAIL, 'generated-password-123')).resolves.toMatchObject({ role: 'admin' });
    expect(await ensureInitialAdmin(services, options)).toBeUndefined();
    expect(await t.db.models.User.countDocuments()).toBe(1);
    await services.audit.flush();
    expect((await services.audit.list()).items[0]).toMatchObject({ action: 'user.create', actor: { type: 'worker' } });
  });

  it('creates the configured admin once and never overwrites its password', async () => {
    const env = { SERVICE_ADMIN_EMAIL: 'Boss@Example.com', SERVICE_ADMIN_PASSWORD: 'first password!!' };
    const options = { generateWhenEmpty: true, generatePassword: () => 'unused-password-1' };
    expect(await ensureInitialAdmin(testServices(t.db, env), options)).toBeUndefined();
    const later = testServices(t.db, { ...env, SERVICE_ADMIN_PASSWORD: 'second password!' });
    await ensureInitialAdmin(later, options);
    await expect(later.users.verifyCredentials('boss@example.com', 'first password!!')).resolves.toMatchObject({ role: 'admin' });
    await expect(later.users.verifyCredentials('boss@example.com', 'second password!')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
