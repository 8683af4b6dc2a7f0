/**
 * The marketplace read (visibility filter, sorted page of 50) over 100k extension records,
 * against the same page read with no filter, interleaved. Reports p50s, the ratio, and what
 * the server's query planner says about index use.
 */
import { createExtensionReader } from '@service/core/extensions';
import { benchDatabase } from './bench-environment.ts';
import { percentile, report, sideBySide } from './harness.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const SCOPES = 200;

const database = await benchDatabase('bench_marketplace');
try {
  const { Extension } = database.db.models;
  const started = performance.now();
  for (let offset = 0; offset < RECORDS; offset += 2_000) {
    const batch = [];
    for (let i = offset; i < Math.min(RECORDS, offset + 2_000); i++) {
      const scope = `@s${i % SCOPES}`;
      const visibility = i % 4 === 0 ? 'public' : 'private';
      const packageName = `${scope}/pkg-${String(i).padStart(6, '0')}`;
      batch.push({
        packageName,
        kind: 'agent',
        version: '1.0.0',
        status: 'installed',
        active: true,
        source: { manifest: { name: packageName }, flow: {} },
        compiled: { packageName, card: { name: packageName, description: 'bench', tags: [] }, agentDependencies: {} },
        searchText: packageName,
        origin: { packageName, version: '1.0.0', destinationId: null, scope, visibility, registryUrl: 'http://r.test/' },
      });
    }
    await Extension.collection.insertMany(batch, { ordered: false });
    if ((offset / 2_000) % 10 === 9) console.log(`  seeded ${Math.min(RECORDS, offset + 2_000)}/${RECORDS} records`);
  }
  console.log(`  seeding done in ${((performance.now() - started) / 1000).toFixed(1)} s (${database.kind})`);

  const reader = createExtensionReader(database.db.models, { vendorScope: '@s7' });
  const first = await reader.marketplace({ limit: 50 });
  const expectedVisible = first.items.every((x) => x.origin.visibility === 'public' || x.origin.scope === '@s7');
  if (!expectedVisible || first.items.length !== 50) throw new Error('the filtered page is wrong; the benchmark would be meaningless');

  const result = await sideBySide(
    `marketplace page of 50 over ${RECORDS} records`,
    { iterations: ITERATIONS, warmup: 1 },
    { name: 'same page, no visibility filter', run: () => Extension.find({}).sort({ packageName: 1 }).limit(51).lean() },
    { name: 'reader.marketplace() with the visibility filter', run: () => reader.marketplace({ limit: 50 }) },
  );
  report(result);
  console.log(`  marketplace p50: ${percentile(result.candidateMs, 50).toFixed(1)} ms`);

  const explain = (await Extension.find(reader.filter()).sort({ packageName: 1 }).limit(51).explain()) as unknown as Record<string, unknown>;
  const plan = JSON.stringify(explain);
  if ('ferretdbVersion' in ((explain.serverInfo as Record<string, unknown>) ?? {})) {
    console.log(`  index use: FerretDB ${String((explain.serverInfo as Record<string, unknown>).ferretdbVersion)} (SQLite) pushes down only _id equality;`);
    console.log(`             filterPushdown=${String(explain.filterPushdown)}, plan ${JSON.stringify((explain.queryPlanner as Record<string, unknown>)?.Plan)}: a full scan.`);
    console.log('             On MongoDB the same query is served by the origin.visibility/origin.scope indexes (set MONGODB_URI to check).');
  } else {
    const usesIndex = plan.includes('IXSCAN');
    const indexes = [...plan.matchAll(/"indexName":"([^"]+)"/g)].map((m) => m[1]);
    console.log(`  index use: ${usesIndex ? 'IXSCAN' : 'NO INDEX (COLLSCAN)'} via ${[...new Set(indexes)].join(', ') || '-'}`);
    if (!usesIndex) process.exitCode = 1;
  }
} finally {
  await database.stop();
}
