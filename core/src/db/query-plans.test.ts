import { inject, describe, expect, it } from 'vitest';
import { Types, type Query } from 'mongoose';
import { expectIndexed as expectIndexedOn, expectIndexUsed as expectIndexUsedOn, NO_SECONDARY_INDEX_ON_FERRETDB1, useTestDatabase, type ServedByIndex } from '../testing/index.ts';
import { runEventId, runEventsAfter } from './index.ts';

/**
 * The hot reads of the service are served by an index on every server it runs on: IXSCAN/IDHACK
 * on MongoDB, the `_id` index (with filter, sort and limit pushed down) on the embedded FerretDB,
 * whose build carries the repository's patch (ADR 0009), the primary key on FerretDB 2 (asked
 * with a hint there, see testing/query-plan-assertions.ts). These are the queries as the code issues them.
 */
const t = useTestDatabase();
const kind = inject('mongoKind');
const expectIndexed = (query: Query<unknown, unknown>, served?: ServedByIndex) => expectIndexedOn(query, kind, served);
const expectIndexUsed = (query: Query<unknown, unknown>, name: string, served?: ServedByIndex) => expectIndexUsedOn(query, kind, name, served);

describe(`query plans of the hot reads (${kind})`, () => {
  it('serves runs, their events, leases, keys, the audit page and sessions from the primary key', async () => {
    const { Run, RunEvent, RunLease, RunKey, AuditEvent, Session, ImportJob, ExtensionListing, Extension, WidgetEdit } = t.db.models;
    const runId = '0190f5e4-0000-7000-8000-000000000001';
    await Run.collection.insertOne({ _id: runId as never, contextId: 'c', agent: '@acme/a', state: 'working', lastSeq: 2, actorType: 'a2a', actorId: 'x', caller: 'a2a:x', input: '{}', status: '{}', remote: null, v: 2, createdAt: new Date(), updatedAt: new Date(), listKey: `0000000000001/${runId}` });
    await RunEvent.collection.insertMany([1, 2].map((seq) => ({ _id: runEventId(runId, seq), runId, seq, type: 'status', event: '{}', state: 'working', generation: 0, at: new Date() })) as never[]);
    await RunLease.collection.insertOne({ _id: runId as never, owner: null, generation: 0, renewedAt: new Date() });
    await RunKey.collection.insertOne({ _id: 'message:abc' as never, runId, expiresAt: new Date() });
    await WidgetEdit.collection.insertOne({ _id: 'b'.repeat(43) as never, connector: 'cms_b', instanceId: 'blog', itemId: '1', fields: [], state: { status: 'draft' }, actor: 'widget:cms_b:blog', createdAt: new Date(), expiresAt: new Date(), undoneAt: null, attempt: 0 });
    // An explain on a collection that does not exist yet has no plan to show.
    for (const model of [AuditEvent, Session, ImportJob, Extension]) await model.collection.insertOne({ probe: true });
    await ExtensionListing.create({ _id: 'public/agent/@acme/a', extensionId: new Types.ObjectId(), packageName: '@acme/a' });

    await expectIndexed(Run.findById(runId));
    // The runs page, newest run first (run ids are UUIDv7), and its next page.
    await expectIndexed(Run.find({}).sort({ _id: -1 }).limit(51), { sort: kind !== 'ferretdb2', limit: true });
    await expectIndexed(Run.find({ _id: { $lt: runId } }).sort({ _id: -1 }).limit(51), { sort: true, limit: true });
    await expectIndexed(Run.find({ _id: { $in: [runId, 'other'] } }));
    // A run's log: its tail (the last event, read before an append), a replay, a take-over's read.
    await expectIndexed(RunEvent.find({ _id: runEventsAfter(runId, 0) }).sort({ _id: -1 }).limit(1), { sort: true, limit: true });
    await expectIndexed(RunEvent.find({ _id: runEventsAfter(runId, 1) }).sort({ _id: 1 }), { sort: true });
    // The conditional head projection selects by `_id` first.
    await expectIndexed(Run.find({ _id: runId, lastSeq: { $lt: 3 } }));
    await expectIndexed(RunLease.find({ _id: runId, owner: 'me', generation: 0 }));
    await expectIndexed(RunKey.findById('message:abc'));
    await expectIndexed(AuditEvent.find({ _id: { $lt: new Types.ObjectId() } }).sort({ _id: -1 }).limit(51), { sort: true, limit: true });
    // A whole-collection page: on FerretDB 2 PostgreSQL walks the primary key backwards only once the
    // table has statistics (ANALYZE, not reachable through the wire); on a fresh table it sorts instead.
    await expectIndexed(ImportJob.find({}).sort({ _id: -1 }).limit(20), { sort: kind !== 'ferretdb2', limit: true });
    // The jobs page unfiltered: each kind's primary key read backwards, below the last job shown.
    for (const model of [t.db.models.PublishJob, t.db.models.ImportSyncEvent]) await model.collection.insertOne({ probe: true });
    await expectIndexed(t.db.models.PublishJob.find({ _id: { $lt: new Types.ObjectId() } }).sort({ _id: -1 }).limit(51), { sort: true, limit: true });
    await expectIndexed(t.db.models.ImportSyncEvent.find({ _id: { $lt: new Types.ObjectId() } }).sort({ _id: -1 }).limit(51), { sort: true, limit: true });
    await expectIndexed(Session.findById('a'.repeat(64)));
    // A widget Undo reads the change its token names, and nothing else.
    await expectIndexed(WidgetEdit.findById('b'.repeat(43)));
    // The marketplace: a listing range per visible prefix, then the records by `_id`.
    await expectIndexed(ExtensionListing.find({ _id: { $gt: 'public/agent/', $lt: 'public/agent/\u007f' } }).sort({ _id: 1 }).limit(51), { sort: true, limit: true });
    await expectIndexed(Extension.find({ _id: { $in: [new Types.ObjectId(), new Types.ObjectId()] } }));
    // Push notifications: the pass reads the working set and the outbox in key order; a config's rows are a key range.
    const { PushCursor, PushDelivery } = t.db.models;
    await PushCursor.collection.insertOne({ _id: 'p1' as never, runId, contextId: 'c', protocol: '1.0', enqueuedSeq: 0 });
    await PushDelivery.collection.insertOne({ _id: 'p1/000000000001' as never, configRef: 'p1', runId, seq: 1, body: '{}', attempts: 0, nextAttemptAt: new Date(), leaseUntil: new Date(0) });
    await expectIndexed(PushCursor.find({}).sort({ _id: 1 }).limit(1000), { sort: kind !== 'ferretdb2', limit: true });
    await expectIndexed(PushDelivery.find({}).sort({ _id: 1 }).limit(500), { sort: kind !== 'ferretdb2', limit: true });
    await expectIndexed(PushDelivery.find({ _id: { $gte: 'p1/', $lt: 'p10' } }));
    // OAuth consents: codes and refresh tokens by their digest, registered clients by id, the connections page newest first.
    const { OauthAuthorizationCode, OauthRefreshToken, OauthRegisteredClient, OauthGrant } = t.db.models;
    for (const model of [OauthAuthorizationCode, OauthRefreshToken, OauthRegisteredClient, OauthGrant]) await model.collection.insertOne({ _id: 'probe' as never });
    await expectIndexed(OauthAuthorizationCode.findById('c'.repeat(43)));
    await expectIndexed(OauthRefreshToken.findById('r'.repeat(43)));
    await expectIndexed(OauthRegisteredClient.findById('mcp_x'));
    await expectIndexed(OauthGrant.findById(runId));
    await expectIndexed(OauthGrant.find({}).sort({ _id: -1 }).limit(200), { sort: kind !== 'ferretdb2', limit: true });
  });

  it.skipIf(kind === 'ferretdb')(`serves every listing of runs and jobs from a compound index (ordered by it on MongoDB; DocumentDB 0.106 sorts what the index selects)${kind === 'ferretdb' ? ` (skipped: ${NO_SECONDARY_INDEX_ON_FERRETDB1})` : ''}`, async () => {
    const { Run, RunKey } = t.db.models;
    // FerretDB 2 orders by the primary key only: a listing's filter is an index range, its order a sort of that range.
    const ordered = kind === 'mongodb';
    const caller = { caller: 'a2a:x' };
    // A first page has no bound; a later one starts below the last key shown.
    const page = { listKey: { $lt: '0000000000001/x' } };
    await expectIndexUsed(Run.find({ ...caller }).sort({ listKey: -1 }).limit(51), 'caller_recent', { sort: ordered, limit: ordered });
    await expectIndexUsed(Run.find({ ...caller, ...page }).sort({ listKey: -1 }).limit(51), 'caller_recent', { sort: ordered, limit: ordered });
    await expectIndexUsed(Run.find({ ...caller, state: 'working', ...page }).sort({ listKey: -1 }).limit(51), 'caller_state_recent', { sort: ordered, limit: ordered });
    await expectIndexUsed(Run.find({ ...caller, contextId: 'c', ...page }).sort({ listKey: -1 }).limit(51), 'caller_context_recent', { sort: ordered, limit: ordered });
    await expectIndexUsed(Run.find({ ...caller }).sort({ _id: -1 }).limit(51), 'caller_newest', { sort: ordered, limit: ordered });
    await expectIndexUsed(Run.find({ state: 'failed', _id: { $lt: 'x' } }).sort({ _id: -1 }).limit(51), 'state_newest', { sort: ordered, limit: ordered });
    await expectIndexUsed(Run.find({ agent: '@acme/a' }).sort({ _id: -1 }).limit(51), 'agent_newest', { sort: ordered, limit: ordered });
    // ListTasks' exact count, and retention's finished runs, oldest first per state.
    await expectIndexUsed(Run.find({ ...caller }), 'caller_recent');
    await expectIndexUsed(Run.find({ state: 'completed', _id: { $lt: '0190' } }).sort({ _id: 1 }).limit(500), 'state_newest', { sort: ordered, limit: ordered });
    // Expired idempotency keys, and a run's keys when retention deletes it.
    await expectIndexUsed(RunKey.find({ expiresAt: { $lt: new Date() } }), 'expires');
    await expectIndexUsed(RunKey.find({ runId: { $in: ['r'] } }), 'run');
    // The jobs page filtered by state (a sync's outcomes for it), newest first, and its next page.
    const { PublishJob, ImportJob, ImportSyncEvent } = t.db.models;
    const older = { _id: { $lt: new Types.ObjectId() } };
    await expectIndexUsed(PublishJob.find({ state: 'failed' }).sort({ _id: -1 }).limit(51), 'state_newest', { sort: ordered, limit: ordered });
    await expectIndexUsed(PublishJob.find({ ...older, state: 'failed' }).sort({ _id: -1 }).limit(51), 'state_newest', { sort: ordered, limit: ordered });
    await expectIndexUsed(ImportJob.find({ ...older, state: 'running' }).sort({ _id: -1 }).limit(51), 'state_newest', { sort: ordered, limit: ordered });
    await expectIndexUsed(ImportSyncEvent.find({ ...older, outcome: { $in: ['failed', 'review-failed', 'license-changed'] } }).sort({ _id: -1 }).limit(51), 'outcome_newest');
    // Expired widget changes (their Undo is over), where the server has no TTL index.
    await expectIndexUsed(t.db.models.WidgetEdit.find({ expiresAt: { $lt: new Date() } }), 'expires');
  });

  it('serves the usage totals page (a range of days of one dimension) from the primary key', async () => {
    const { UsageRow } = t.db.models;
    await UsageRow.collection.insertOne({ _id: 'agent/2026-11-27/@acme/a/0190f5e4-0000-7000-8000-000000000001' as never, calls: 1, inputTokens: 1, outputTokens: 1, at: new Date() });
    // As usage/rollups.ts `totals` issues it.
    await expectIndexed(UsageRow.find({ _id: { $gt: 'agent/2026-11-01/', $lt: 'agent/2026-11-280' } }).sort({ _id: 1 }), { sort: true });
    // The folded days of the page (one document a day).
    await expectIndexed(UsageRow.find({ _id: { $gte: 'day/agent/2026-11-01', $lte: 'day/agent/2026-11-28' } }).sort({ _id: 1 }), { sort: true });
  });

  it('answers _id ranges, $in and sorts exactly as MongoDB does', async () => {
    const { Claim } = t.db.models;
    const ids = Array.from({ length: 30 }, (_, i) => `k/${String(i).padStart(3, '0')}`);
    await Claim.insertMany([...ids].reverse().map((_id) => ({ _id, owner: 'o', at: new Date() })));
    const read = async (query: Query<{ _id: string }[], unknown>) => (await query.lean<{ _id: string }[]>()).map((row) => row._id);
    expect(await read(Claim.find({ _id: { $gt: 'k/010', $lte: 'k/013' } }).sort({ _id: 1 }))).toEqual(ids.slice(11, 14));
    expect(await read(Claim.find({ _id: { $lt: 'k/020', $gte: 'k/' } }).sort({ _id: -1 }).limit(3))).toEqual(['k/019', 'k/018', 'k/017']);
    expect(await read(Claim.find({ _id: { $in: ['k/003', 'k/029', 'nope'] } }).sort({ _id: 1 }))).toEqual(['k/003', 'k/029']);
    expect(await read(Claim.find({ _id: { $gte: 'k/' } }).sort({ _id: -1 }).limit(2))).toEqual(['k/029', 'k/028']);
    // `_id` with other conditions: the `_id` part selects, the rest still filters.
    await Claim.updateOne({ _id: 'k/005' }, { $set: { owner: 'p' } });
    expect(await read(Claim.find({ _id: { $in: ['k/004', 'k/005', 'k/006'] }, owner: 'p' }) as never)).toEqual(['k/005']);
    expect(await read(Claim.find({ _id: { $gt: 'k/000' }, owner: { $ne: 'o' } }).sort({ _id: 1 }).limit(1) as never)).toEqual(['k/005']);
    expect((await Claim.updateOne({ _id: 'k/006', owner: 'p' }, { $set: { owner: 'q' } })).matchedCount).toBe(0);
  });
});
