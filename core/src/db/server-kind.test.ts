import { describe, expect, inject, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { detectServerKind, serverKindOf } from './server-kind.ts';

describe('server kind', () => {
  const t = useTestDatabase();

  it('reads the kind from buildInfo', () => {
    expect(serverKindOf({ ferretdb: { version: 'v2.5.0' } })).toBe('ferretdb2');
    expect(serverKindOf({ ferretdbVersion: 'v1.24.2' })).toBe('ferretdb');
    expect(serverKindOf({})).toBe('mongodb');
  });

  it('agrees with what the test setup detected', async () => {
    expect(await detectServerKind(t.db.connection.db!)).toBe(inject('mongoKind'));
  });
});
