/**
 * The marketplace page (visibility rule, sorted page of 50) over 100k extension records against
 * the same page over 1k, interleaved. Goals: ratio <= 2 and p50 <= 50 ms at 100k on the embedded
 * default. Also prints what the server's planner says about the listing range read.
 *
 *   BENCH_RECORDS=100000 (default)   BENCH_ITERATIONS=20 (default)
 */
import { createExtensionReader, listingKey } from '@service/core/extensions';
import { benchDatabase } from './bench-environment.ts';
import { percentile, report, sideBySide } from './harness.ts';
import { insertInBatches } from './insert-batches.ts';
import { recordFigure, verdict } from './results.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const SMALL = 1_000;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const SCOPES = 200;
const GOAL_MS = 50;

async function seeded(records: number) {
  const database = await benchDatabase(`bench_marketplace_${records}`);
  const { Extension, ExtensionListing } = database.db.models;
  const { ObjectId } = Extension.base.Types;
  const started = performance.now();
  const rows = [];
  for (let i = 0; i < records; i++) {
    const scope = `@s${i % SCOPES}`;
    const visibility = i % 4 === 0 ? 'public' : 'private';
    const kind = i % 3 === 0 ? 'skill' : 'agent';
    const packageName = `${scope}/pkg-${String(i).padStart(6, '0')}`;
    rows.push({
      _id: new ObjectId(),
      packageName,
      kind,
      version: '1.0.0',
      status: 'installed',
      active: true,
      source: { manifest: { name: packageName }, flow: {} },
      compiled: { packageName, card: { name: packageName, description: 'bench', tags: [] }, agentDependencies: {} },
      searchText: packageName,
      origin: { packageName, version: '1.0.0', destinationId: null, scope, visibility, registryUrl: 'http://r.test/' },
    });
  }
  // The writer lists each record it writes; seeding in bulk writes both collections directly.
  await insertInBatches(Extension.collection, rows, { ordered: false });
  await insertInBatches(ExtensionListing.collection, rows.map((row) => ({ _id: listingKey(row as never), extensionId: row._id, packageName: row.packageName, searchText: row.searchText })) as never[], { ordered: false });
  console.log(`  seeded ${records} records in ${((performance.now() - started) / 1000).toFixed(1)} s (${database.kind})`);
  const reader = createExtensionReader(database.db.models, { vendorScope: '@s7' });
  const first = await reader.marketplace({ limit: 50 });
  const visibleOnly = first.items.every((x) => x.origin.visibility === 'public' || x.origin.scope === '@s7');
  if (!visibleOnly || first.items.length !== 50) throw new Error('the page is wrong; the benchmark would be meaningless');
  return { database, reader };
}

const small = await seeded(SMALL);
const big = await seeded(RECORDS);
try {
  const result = await sideBySide(
    `marketplace page of 50 (visibility rule), ${RECORDS} vs ${SMALL} records`,
    { iterations: ITERATIONS, warmup: 2 },
    { name: `${SMALL} records`, run: () => small.reader.marketplace({ limit: 50 }) },
    { name: `${RECORDS} records`, run: () => big.reader.marketplace({ limit: 50 }) },
  );
  report(result, 2);
  const p50 = percentile(result.candidateMs, 50);
  const p50Figure = recordFigure({ name: `marketplace p50 at ${RECORDS}`, value: p50, unit: 'ms', goal: { op: '<=', target: GOAL_MS } });
  console.log(`  marketplace p50 at ${RECORDS}: ${p50.toFixed(1)} ms (goal <= ${GOAL_MS} ms: ${verdict(p50Figure)})`);
  const page2 = (await big.reader.marketplace({ limit: 50 })).nextAfter!;
  const t0 = performance.now();
  await big.reader.marketplace({ limit: 50, after: page2 });
  const laterPageMs = performance.now() - t0;
  recordFigure({ name: `a later page at ${RECORDS} (one read)`, value: laterPageMs, unit: 'ms' });
  console.log(`  a later page (after=${page2}): ${laterPageMs.toFixed(1)} ms`);

  const { ExtensionListing } = big.database.db.models;
  const explain = (await ExtensionListing.find({ _id: { $gt: 'public/agent/', $lt: 'public/agent/\u007f' } }).sort({ _id: 1 }).limit(51).explain()) as unknown as Record<string, unknown>;
  const plan = JSON.stringify(explain);
  const served = 'ferretdbVersion' in ((explain.serverInfo as Record<string, unknown>) ?? {}) ? /USING INDEX \S+__id_/.test(plan) && explain.limitPushdown === true : /IXSCAN|IDHACK|EXPRESS/.test(plan) && !plan.includes('COLLSCAN');
  recordFigure({ name: 'listing range read served by the _id index', value: served, goal: { op: '=', target: true } });
  console.log(`  listing range read: ${served ? 'served by the _id index' : 'NOT served by an index'}`);
} finally {
  await small.database.stop();
  await big.database.stop();
}
