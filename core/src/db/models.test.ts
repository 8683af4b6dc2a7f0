import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { isDuplicateKeyError } from './index.ts';

const t = useTestDatabase();

describe('models against the real test database', () => {
  it('round-trips a user', async () => {
    const { User } = t.db.models;
    const created = await User.create({ email: '  Ada@Example.com ', passwordHash: 'scrypt$x', role: 'admin' });
    const found = await User.findById(created._id).lean();
    expect(found).toMatchObject({ email: 'ada@example.com', role: 'admin', passwordHash: 'scrypt$x' });
    expect(found?.createdAt).toBeInstanceOf(Date);
  });

  it('rejects a second user with the same email through the unique index', async () => {
    const { User } = t.db.models;
    await User.create({ email: 'dup@example.com', passwordHash: 'a', role: 'member' });
    const error = await User.create({ email: 'DUP@example.com', passwordHash: 'b', role: 'member' }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(error)).toBe(true);
    expect(await User.countDocuments({ email: 'dup@example.com' })).toBe(1);
  });

  it('keeps the append-only history on its primary key alone, and gives run heads an index per listing (docs/data-model.md)', async () => {
    // Events, leases and audit rows are read by `_id` and `_id` ranges only; a secondary index there
    // would cost every write and serve nothing.
    for (const model of [t.db.models.RunEvent, t.db.models.AuditEvent, t.db.models.RunLease]) {
      expect(model.schema.indexes(), model.collection.name).toEqual([]);
    }
    // Widget changes are read by `_id` (the token's hash) only; the one index serves their expiry.
    expect(t.db.models.WidgetEdit.schema.indexes()).toEqual([[{ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 0 }]]);
    expect(t.db.models.Run.schema.indexes().map(([, options]) => options.name).sort()).toEqual(['agent_newest', 'caller_context_recent', 'caller_newest', 'caller_recent', 'caller_state_recent', 'state_newest']);
    await t.db.models.Extension.createIndexes();
    const indexes = await t.db.models.Extension.collection.indexes();
    expect(indexes.map((i) => i.key)).toEqual(expect.arrayContaining([{ packageName: 1 }, { 'origin.visibility': 1, packageName: 1 }]));
  });
});
