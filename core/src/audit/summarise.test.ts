import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { boundDetails, createAuditLog, MAX_AUDIT_DETAILS_BYTES, MAX_AUDIT_SUMMARY_BYTES, summariseChanges, summariseInput } from './index.ts';

const t = useTestDatabase();
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('audit summaries', () => {
  it('keep each key\'s type and size, preview only identifiers and enums, never content', () => {
    const dataBase64 = randomBytes(3 * 1024 * 1024).toString('base64');
    const body = 'Secret launch plans. '.repeat(5_000);
    const summary = summariseInput({ instanceId: 'wp-main', id: 42, filename: 'cover.png', mimeType: 'image/png', dataBase64, title: 'Unreleased product name', body, force: true, media: [{ url: 'https://x.test/a.png' }, { url: 'https://x.test/b.png' }], nothing: null, skipped: undefined });
    expect(summary).toEqual({
      instanceId: { type: 'string', bytes: 7, preview: 'wp-main' },
      id: { type: 'number', value: 42 },
      filename: { type: 'string', bytes: 9, preview: 'cover.png' },
      mimeType: { type: 'string', bytes: 9, preview: 'image/png' },
      dataBase64: { type: 'string', bytes: dataBase64.length },
      title: { type: 'string', bytes: 23 },
      body: { type: 'string', bytes: body.length },
      force: { type: 'boolean', value: true },
      media: { type: 'array', count: 2, bytes: bytes([{ url: 'https://x.test/a.png' }, { url: 'https://x.test/b.png' }]) },
      nothing: { type: 'null' },
    });
    const stored = JSON.stringify(summary);
    expect(stored).not.toContain(dataBase64.slice(0, 40));
    expect(stored).not.toContain('Unreleased');
    expect(stored).not.toContain('launch plans');
  });

  it('never keeps any part of a secret-looking key\'s value, at the top or one level down', () => {
    const secrets = { password: 'hunter2-password', apiKey: 'swk_abcdefghijkl', credential: 'app-pass-123', accessToken: 'tok_secret', clientSecret: 'cs_1', authorization: 'Bearer xyz' };
    const summary = summariseInput({ instanceId: 'a', ...secrets, fields: { title: 'Hello', privateKeyPem: '-----BEGIN KEY-----', status: 'draft' } });
    const stored = JSON.stringify(summary);
    for (const value of [...Object.values(secrets), '-----BEGIN KEY-----', 'Hello']) expect(stored).not.toContain(value);
    for (const key of Object.keys(secrets)) expect(summary[key]).toEqual({ type: 'redacted' });
    expect(summary.fields).toEqual({ type: 'object', bytes: expect.any(Number), keys: { title: { type: 'string', bytes: 5 }, privateKeyPem: { type: 'redacted' }, status: { type: 'string', bytes: 5, preview: 'draft' } } });
  });

  it('stay within 2 KiB of JSON however many keys or however long the previews', () => {
    const meta = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`meta_field_${'x'.repeat(150)}_${i}`, 'v'.repeat(1_000)]));
    const summary = summariseInput({ instanceId: 'i'.repeat(5_000), slug: 's'.repeat(5_000), meta, ...meta });
    expect(bytes(summary)).toBeLessThanOrEqual(MAX_AUDIT_SUMMARY_BYTES);
    expect(summary._omitted).toBeGreaterThan(400);
    expect((summary.instanceId as { preview: string }).preview.length).toBeLessThanOrEqual(65);
    expect(summary.meta).toMatchObject({ type: 'object', bytes: expect.any(Number) });
    expect(bytes(summariseInput('x'.repeat(100_000)))).toBeLessThan(100);
  });

  it('describe a diff by field names and byte sizes only', () => {
    expect(summariseChanges([{ field: 'title', before: 'Old', after: 'Ünïcode' }])).toEqual([{ field: 'title', beforeBytes: 3, afterBytes: 9 }]);
  });

  it('a row keeps small details as given and stores big ones as their summary', async () => {
    expect(boundDetails({ siteUrl: 'https://a.test', credentialChanged: true })).toEqual({ siteUrl: 'https://a.test', credentialChanged: true });
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const dataBase64 = randomBytes(1024 * 1024).toString('base64');
    audit.record({ type: 'worker', id: 'w', job: 'test' }, { action: 'test.big', resourceType: 'thing', details: { input: { instanceId: 'a', dataBase64 } } });
    await audit.flush();
    const row = (await audit.list()).items.find((item) => item.action === 'test.big')!;
    expect(bytes(row.details)).toBeLessThanOrEqual(MAX_AUDIT_DETAILS_BYTES);
    expect(JSON.stringify(row.details)).not.toContain(dataBase64.slice(0, 40));
    expect(row.details).toMatchObject({ _summarised: true, input: { type: 'object', keys: { dataBase64: { type: 'string', bytes: dataBase64.length } } } });
  });
});
