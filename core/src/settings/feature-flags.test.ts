import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { createLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createFeatureFlagStore } from './feature-flags.ts';
import { createSettings } from './settings.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;

describe('runtime switches', () => {
  it('read the environment until stored, store it once at the first start, then follow the admin', async () => {
    await t.db.models.Setting.deleteMany({});
    let environment = { a2aHttpEnabled: true, aguiExternalEnabled: false };
    const settings = createSettings({ models: t.db.models, audit: createAuditLog(t.db.models, createLogger({ level: 'error' })) });
    const flags = createFeatureFlagStore({ settings, environment: () => environment });
    expect(await flags.read()).toEqual({ a2aHttpEnabled: true, aguiExternalEnabled: false });
    expect(await flags.storeInitial()).toBe(true);
    environment = { a2aHttpEnabled: false, aguiExternalEnabled: true };
    expect(await flags.storeInitial()).toBe(false);
    expect(await flags.read()).toEqual({ a2aHttpEnabled: true, aguiExternalEnabled: false });
    expect(await flags.set(admin, 'aguiExternalEnabled', true)).toEqual({ a2aHttpEnabled: true, aguiExternalEnabled: true });
    expect(await flags.read()).toEqual({ a2aHttpEnabled: true, aguiExternalEnabled: true });
    await expect(flags.set({ type: 'ui', id: 'viewer', email: 'v@x.test', role: 'viewer' } as never, 'a2aHttpEnabled', false)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
