import { describe, expect, it } from 'vitest';
import { testDatabaseUri } from '@service/core/testing';
import { startService } from '../helpers/service-process.ts';

describe('service start-up with a bad variable', () => {
  it.each([
    ['SERVICE_VENDOR_SCOPE', 'no-at-sign'],
    ['SERVICE_BASE_URL', 'https://example.com/path'],
    ['SERVICE_MASTER_KEY', 'too-short'],
  ])('exits non-zero naming %s', async (variable, value) => {
    const failure = await startService({ mongodbUri: testDatabaseUri('unused'), env: { [variable]: value } }).then(
      async (service) => {
        await service.stop();
        throw new Error('the service started');
      },
      (error: unknown) => error as Error,
    );
    expect(failure.message).toMatch(/exited with code 1/);
    expect(failure.message).toContain(`${variable}:`);
  });
});
