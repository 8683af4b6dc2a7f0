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

  it('keeps the history collections on their primary key alone (docs/data-model.md)', async () => {
    // Runs, events and audit rows are read by `_id` and `_id` ranges only; a secondary index there
    // would cost every write and serve nothing.
    for (const model of [t.db.models.Run, t.db.models.RunEvent, t.db.models.AuditEvent, t.db.models.RunLease]) {
      expect(model.schema.indexes(), model.collection.name).toEqual([]);
    }
    await t.db.models.Extension.createIndexes();
    const indexes = await t.db.models.Extension.collection.indexes();
    expect(indexes.map((i) => i.key)).toEqual(expect.arrayContaining([{ packageName: 1 }, { 'origin.visibility': 1, packageName: 1 }]));
  });
});
