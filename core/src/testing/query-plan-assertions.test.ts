import { describe, expect, inject, it } from 'vitest';
import { Schema } from 'mongoose';
import { useTestDatabase } from './test-database.ts';
import { expectIndexUsed } from './query-plan-assertions.ts';

const t = useTestDatabase();
const kind = inject('mongoKind');

describe(`expectIndexUsed (${kind})`, () => {
  it('passes for a query the named compound index serves and fails for one it cannot', async () => {
    const schema = new Schema({ _id: String, state: String, at: Date }, { versionKey: false });
    schema.index({ state: 1, _id: -1 }, { name: 'state_1__id_-1' });
    const Probe = t.db.connection.model('PlanProbe', schema, 'plan_probes');
    await Probe.createIndexes();
    await Probe.insertMany([{ _id: 'a', state: 'working', at: new Date() }, { _id: 'b', state: 'done', at: new Date() }]);

    // DocumentDB (FerretDB 2) serves no sort from a secondary index: a Sort node stays there.
    await expectIndexUsed(Probe.find({ state: 'working' }).sort({ _id: -1 }).limit(10), kind, 'state_1__id_-1', { sort: kind === 'mongodb' });
    if (kind !== 'ferretdb') {
      await expect(expectIndexUsed(Probe.find({ at: { $lt: new Date() } }), kind, 'state_1__id_-1')).rejects.toThrow();
    }
  });
});
