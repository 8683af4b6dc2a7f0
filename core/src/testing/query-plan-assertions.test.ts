import { describe, expect, inject, it } from 'vitest';
import { Schema, type Model } from 'mongoose';
import { useTestDatabase } from './test-database.ts';
import { expectIndexUsed, NO_SECONDARY_INDEX_ON_FERRETDB1 } from './query-plan-assertions.ts';

/** The probe collection's documents. */
type ProbeDoc = { _id: string; state: string; at: Date };

const t = useTestDatabase();
const kind = inject('mongoKind');
const onFerretdb1 = kind === 'ferretdb';
const skipped = onFerretdb1 ? ` (skipped: ${NO_SECONDARY_INDEX_ON_FERRETDB1})` : '';

describe(`expectIndexUsed (${kind})`, () => {
  const probe = async () => {
    const schema = new Schema({ _id: String, state: String, at: Date }, { versionKey: false });
    schema.index({ state: 1, _id: -1 }, { name: 'state_1__id_-1' });
    const Probe = (t.db.connection.models.PlanProbe as Model<ProbeDoc> | undefined) ?? t.db.connection.model<ProbeDoc>('PlanProbe', schema, 'plan_probes');
    await Probe.createIndexes();
    await Probe.deleteMany({});
    await Probe.insertMany([{ _id: 'a', state: 'working', at: new Date() }, { _id: 'b', state: 'done', at: new Date() }]);
    return Probe;
  };

  it.skipIf(onFerretdb1)(`passes for a query the named compound index serves${skipped}`, async () => {
    const Probe = await probe();
    // DocumentDB (FerretDB 2) serves no sort from a secondary index: a Sort node stays there.
    await expectIndexUsed(Probe.find({ state: 'working' }).sort({ _id: -1 }).limit(10), kind, 'state_1__id_-1', { sort: kind === 'mongodb' });
  });

  it.skipIf(onFerretdb1)(`fails for a query the named index cannot serve${skipped}`, async () => {
    const Probe = await probe();
    await expect(expectIndexUsed(Probe.find({ at: { $lt: new Date() } }), kind, 'state_1__id_-1')).rejects.toThrow();
  });

  it.runIf(onFerretdb1)(`refuses to check a secondary index on FerretDB 1.x rather than pass without looking${onFerretdb1 ? '' : ` (skipped: ${kind} has secondary indexes to show)`}`, async () => {
    const Probe = await probe();
    await expect(expectIndexUsed(Probe.find({ state: 'working' }), kind, 'state_1__id_-1')).rejects.toThrow(/cannot check state_1__id_-1 on FerretDB 1\.x/);
  });
});
