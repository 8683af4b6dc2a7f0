import mongoose, { type Query } from 'mongoose';
import { expect } from 'vitest';
import type { ServerKind } from '../db/index.ts';

/**
 * Test assertions that a query is served by an index, on each kind of server the service runs on.
 * Each server explains in its own language: MongoDB in stages (IXSCAN, SORT), the embedded
 * FerretDB 1.24 in SQLite plan lines plus pushdown flags, FerretDB 2 in PostgreSQL plan nodes.
 */

export interface ServedByIndex {
  /** The order comes from walking the index: no sort step in the plan. */
  sort?: boolean;
  /** The limit reaches the backend's plan (checked on FerretDB, where it may not). */
  limit?: boolean;
}

type AnyQuery = Query<unknown, unknown>;
type Explained = Record<string, unknown>;

/** The query is served by the `_id` index (primary key). */
export async function expectIndexed(query: AnyQuery, kind: ServerKind, served: ServedByIndex = {}): Promise<void> {
  if (kind === 'ferretdb') return expectSqlitePlan(query, served);
  if (kind === 'ferretdb2') return expectPostgresPlan(query, { key: { _id: 1 }, name: '_id_' }, served);
  return expectMongodbPlan(query, undefined, served);
}

/** FerretDB 1.24 reads through no secondary index (its filter pushdown covers `_id` only): a test of one is skipped there, saying so. */
export const NO_SECONDARY_INDEX_ON_FERRETDB1 = 'FerretDB 1.24 reads through no secondary index; its filter pushdown covers _id only';

/**
 * The query is served by the secondary index `indexName`. Refused on the embedded FerretDB 1.24,
 * which has none to show (NO_SECONDARY_INDEX_ON_FERRETDB1), so a test cannot pass there without checking.
 */
export async function expectIndexUsed(query: AnyQuery, kind: ServerKind, indexName: string, served: ServedByIndex = {}): Promise<void> {
  if (kind === 'ferretdb') throw new Error(`expectIndexUsed cannot check ${indexName} on FerretDB 1.x (${NO_SECONDARY_INDEX_ON_FERRETDB1}): skip the test there`);
  if (kind === 'ferretdb2') return expectPostgresPlan(query, { key: indexName, name: indexName }, served);
  return expectMongodbPlan(query, indexName, served);
}

async function explain(query: AnyQuery): Promise<Explained> {
  const plan = (await query.clone().explain()) as Explained | Explained[];
  return (Array.isArray(plan) ? plan[0] : plan)!;
}

// --- MongoDB: a tree of stages ---

function stagesOf(plan: unknown, out: Explained[] = []): Explained[] {
  if (!plan || typeof plan !== 'object') return out;
  const node = plan as Explained;
  if (typeof node.stage === 'string') out.push(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) value.forEach((v) => stagesOf(v, out));
    else if (value && typeof value === 'object') stagesOf(value, out);
  }
  return out;
}

async function expectMongodbPlan(query: AnyQuery, indexName: string | undefined, served: ServedByIndex) {
  const stages = stagesOf((await explain(query)).queryPlanner);
  const names = stages.map((s) => s.stage as string);
  if (indexName) expect(stages.filter((s) => s.indexName === indexName).map((s) => s.stage)).toContainEqual(expect.stringMatching(/IXSCAN/));
  else expect(names.some((s) => /IXSCAN|IDHACK|EXPRESS/.test(s))).toBe(true);
  expect(names).not.toContain('COLLSCAN');
  if (served.sort) expect(names).not.toContain('SORT');
}

// --- FerretDB 1.24 on SQLite: plan lines and pushdown flags ---

async function expectSqlitePlan(query: AnyQuery, served: ServedByIndex) {
  const explained = await explain(query);
  const lines = ((explained.queryPlanner as { Plan?: string[] }).Plan ?? []).join('\n');
  expect(lines).toMatch(/USING INDEX \S+__id_/);
  // An ordered walk of the index with LIMIT reads `SCAN t USING INDEX`; a bare SCAN or a temporary sort is not allowed.
  for (const line of lines.split('\n')) if (/\bSCAN\b/.test(line)) expect(line).toMatch(/USING INDEX/);
  expect(lines).not.toMatch(/TEMP B-TREE/);
  if (Object.keys(query.getFilter()).length > 0) expect(explained.filterPushdown).toBe(true);
  if (served.sort) expect(explained.sortPushdown).toBe(true);
  if (served.limit) expect(explained.limitPushdown).toBe(true);
}

// --- FerretDB 2 (PostgreSQL + DocumentDB): a tree of PostgreSQL plan nodes ---

interface PostgresNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PostgresNode[];
}

const INDEX_SCANS = ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'];

function nodesOf(node: PostgresNode | undefined, out: PostgresNode[] = []): PostgresNode[] {
  if (!node) return out;
  out.push(node);
  for (const child of node.Plans ?? []) nodesOf(child, out);
  return out;
}

/**
 * PostgreSQL's planner costs plans from table statistics; on the few rows of a test (never
 * ANALYZEd) a sequential scan is cheapest, and there is no SQL access to change that from here.
 * The hint asks what the assertion is about: can this index serve the filter, order and limit.
 * DocumentDB honours hints (`documentdb.enableIndexHintSupport`, on by default).
 */
async function expectPostgresPlan(query: AnyQuery, index: { key: string | Record<string, 1>; name: string }, served: ServedByIndex) {
  const explained = await explain(query.clone().hint(index.key));
  const nodes = nodesOf((explained.queryPlanner as { Plan?: PostgresNode }).Plan);
  const types = nodes.map((n) => n['Node Type']);
  const scans = nodes.filter((n) => INDEX_SCANS.includes(n['Node Type']) && n['Index Name'] === index.name);
  expect(scans, `an index scan on ${index.name} in ${types.join(' > ')}`).not.toHaveLength(0);
  expect(types).not.toContain('Seq Scan');
  // The filter reaches the index as a condition (the `_id` column is `object_id`), not as a walk over all of it.
  const filter = query.getFilter();
  const conditions = scans.map((n) => n['Index Cond'] ?? '');
  if (index.name === '_id_' && '_id' in filter) expect(conditions.join(' ')).toMatch(/object_id/);
  else if (Object.keys(filter).length > 0) expect(conditions.some((c) => c && !isFullIndexScan(c)), `a condition on ${index.name}: ${conditions.join('; ')}`).toBe(true);
  if (served.sort) expect(types.filter((t) => /Sort$/.test(t))).toEqual([]);
  if (served.limit) expect(types).toContain('Limit');
}

/**
 * A hinted index that cannot answer the filter is still walked, whole: DocumentDB writes that as
 * a range condition whose BSON argument reads `{ <path>: { fullScan: true } }`.
 */
function isFullIndexScan(condition: string): boolean {
  return [...condition.matchAll(/'BSONHEX([0-9a-f]+)'/g)].some(([, hex]) => {
    const argument = mongoose.mongo.BSON.deserialize(Buffer.from(hex!, 'hex'));
    return Object.values(argument).some((spec) => (spec as { fullScan?: unknown } | null)?.fullScan === true);
  });
}
