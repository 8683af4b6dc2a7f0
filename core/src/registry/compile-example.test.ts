import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-example', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(() => {
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@initech' });
});

describe('an authored agent from a shipped example', () => {
  it('compiles the example into this instance’s scope', async () => {
    const extension = await services.registry.compileExample(admin, 'summarizer');
    expect(extension).toMatchObject({ packageName: '@initech/summarizer', kind: 'agent' });
    expect((await services.extensions.get(extension.id))?.packageName).toBe('@initech/summarizer');
  });

  it('answers NOT_FOUND for an example that is not shipped, and FORBIDDEN to a non-admin', async () => {
    await expect(services.registry.compileExample(admin, 'no-such-example')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(services.registry.compileExample({ type: 'ui', id: 'm', email: 'm@acme.test', role: 'member' }, 'summarizer')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
