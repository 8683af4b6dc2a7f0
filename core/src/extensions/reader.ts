import type { KnownTools, ReviewContext } from '../agents/index.ts';
import type { Models } from '../db/index.ts';
import { toExtensionView, type ExtensionView } from './extension-view.ts';
import { createListing, listingKey, visibleKeys, visibleRanges } from './listing.ts';
import type { ExtensionOrigin } from './origin.ts';
import { isVisibleTo, visibilityFilter } from './visibility.ts';

export interface MarketplaceQuery {
  text?: string;
  kind?: 'agent' | 'skill';
  limit?: number;
  /** The last packageName of the previous page. */
  after?: string;
}

export interface ExtensionReader {
  /** Active agent templates visible here: what the AgentCard and the runtime use. */
  activeTemplates(): Promise<ExtensionView[]>;
  /** The marketplace screen: visible records, searched and paged by package name. */
  marketplace(query?: MarketplaceQuery): Promise<{ items: ExtensionView[]; nextAfter: string | null }>;
  /** The extension-search handler (MCP uses it): the best matches for a text. */
  search(text: string, limit?: number): Promise<ExtensionView[]>;
  get(id: string): Promise<ExtensionView | null>;
  getByPackageName(packageName: string): Promise<ExtensionView | null>;
  /** Agent dependencies of every visible record, for review's cycle check. */
  dependencyIndex(): Promise<Map<string, Record<string, string>>>;
  /** What review needs to judge a package for `vendorScope`: that scope, the visible agents' dependencies (for cycles) and the tools this instance has. */
  reviewContext(vendorScope: string): Promise<ReviewContext>;
  /** The filter in effect for this reader, for `explain` checks. */
  filter(): ReturnType<typeof visibilityFilter>;
}

/** Listing rows read per range and round trip; the first read of a page asks for just the page. */
const LISTING_BATCH = 200;
/** `$in` lists are sent in chunks of this many ids. */
const ID_CHUNK = 500;
type ListingRow = { _id: string; extensionId: unknown; packageName: string; searchText?: string | null };
type Row = Parameters<typeof toExtensionView>[0] & { searchText?: string | null };

/**
 * The only reader of extension records. Every method applies the visibility rule for the
 * instance's own vendor scope; nothing here can be asked to skip it.
 *
 * Lists walk the `extension_listing` key ranges a reader may see (public rows and its own
 * private ones), merged in package-name order, so a page costs what it shows however many
 * records are stored; each row is then checked against its record (visibility included) by `_id`.
 */
export function createExtensionReader(models: Models, identity: { vendorScope: string }, options: { knownTools?: () => Promise<KnownTools> } = {}): ExtensionReader {
  const { Extension, ExtensionListing } = models;
  const visible = () => visibilityFilter(identity.vendorScope);
  const listing = createListing(models);

  /** Listing rows of `ranges` after the package name `after`, merged in package-name order. */
  async function* ordered(ranges: ReturnType<typeof visibleRanges>, after: string | undefined, firstBatch: number): AsyncGenerator<ListingRow> {
    const cursors = ranges.map((range) => ({ ...range, next: after ? `${range.prefix}${after}` : range.from, buffer: [] as ListingRow[], done: false }));
    for (let batch = firstBatch; ; batch = LISTING_BATCH) {
      await Promise.all(
        cursors
          .filter((c) => c.buffer.length === 0 && !c.done)
          .map(async (c) => {
            const rows = (await ExtensionListing.find({ _id: { $gt: c.next, $lt: c.to } }).sort({ _id: 1 }).limit(batch).lean()) as ListingRow[];
            c.buffer = rows;
            c.done = rows.length < batch;
            if (rows.length > 0) c.next = rows[rows.length - 1]!._id;
          }),
      );
      const live = cursors.filter((c) => c.buffer.length > 0);
      if (live.length === 0) return;
      // Yield from the buffers until one runs dry, then refill it.
      while (live.every((c) => c.buffer.length > 0 || c.done)) {
        const heads = live.filter((c) => c.buffer.length > 0);
        if (heads.length === 0) return;
        const head = heads.reduce((a, b) => (a.buffer[0]!.packageName <= b.buffer[0]!.packageName ? a : b));
        yield head.buffer.shift()!;
      }
    }
  }

  /** The records of `rows`, in the rows' order, each still listed under that key and visible; stale rows are dropped. */
  async function recordsOf(rows: ListingRow[], projection?: Record<string, 1>): Promise<{ records: Row[]; stale: number }> {
    const byId = new Map<string, Row>();
    for (let i = 0; i < rows.length; i += ID_CHUNK) {
      const ids = rows.slice(i, i + ID_CHUNK).map((row) => row.extensionId);
      const found = (await Extension.find({ _id: { $in: ids } }, projection ? { ...projection, packageName: 1, kind: 1, origin: 1 } : undefined).lean()) as Row[];
      for (const record of found) byId.set(String(record._id), record);
    }
    const records: Row[] = [];
    const stale: string[] = [];
    for (const row of rows) {
      const record = byId.get(String(row.extensionId));
      const current = record && listingKey(record as Parameters<typeof listingKey>[0]) === row._id && isVisibleTo(record.origin as ExtensionOrigin, identity.vendorScope);
      if (current) records.push(record);
      else stale.push(row._id);
    }
    await listing.drop(stale);
    return { records, stale: stale.length };
  }

  /** Every visible record of `kind` (or all kinds), in package-name order. */
  async function everyVisible(kind?: 'agent' | 'skill', projection?: Record<string, 1>): Promise<Row[]> {
    const rows: ListingRow[] = [];
    for await (const row of ordered(visibleRanges(identity.vendorScope, kind), undefined, LISTING_BATCH)) rows.push(row);
    return (await recordsOf(rows, projection)).records;
  }

  const dependencyIndex = async () => {
    const rows = await everyVisible(undefined, { 'compiled.agentDependencies': 1 });
    return new Map(rows.map((row) => [row.packageName, (row.compiled as { agentDependencies?: Record<string, string> } | undefined)?.agentDependencies ?? {}]));
  };

  const marketplace: ExtensionReader['marketplace'] = async ({ text, kind, limit = 50, after } = {}) => {
    const size = Math.min(Math.max(limit, 1), 200);
    const needle = text?.trim().toLowerCase();
    // A page with stale rows (dropped as they are found) is read again; they are rare.
    for (let attempt = 0; ; attempt++) {
      const picked: ListingRow[] = [];
      for await (const row of ordered(visibleRanges(identity.vendorScope, kind), after, size + 1)) {
        if (needle && !(row.searchText ?? '').includes(needle)) continue;
        picked.push(row);
        if (picked.length > size) break;
      }
      const { records, stale } = await recordsOf(picked);
      if (stale > 0 && attempt < 3) continue;
      const matching = records.filter((record) => !needle || (record.searchText ?? '').includes(needle));
      const items = matching.slice(0, size).map(toExtensionView);
      return { items, nextAfter: matching.length > size ? (items[items.length - 1]?.packageName ?? null) : null };
    }
  };

  return {
    async activeTemplates() {
      return (await everyVisible('agent')).filter((row) => row.active !== false && row.status !== 'draft').map(toExtensionView);
    },
    marketplace,
    async search(text, limit = 20) {
      return (await marketplace({ text, limit })).items;
    },
    async get(id) {
      if (!/^[a-f0-9]{24}$/.test(id)) return null;
      const row = await Extension.findById(id).lean();
      return row && isVisibleTo(row.origin as ExtensionOrigin, identity.vendorScope) ? toExtensionView(row) : null;
    },
    async getByPackageName(packageName) {
      const rows = (await ExtensionListing.find({ _id: { $in: visibleKeys(identity.vendorScope, packageName) } }).lean()) as ListingRow[];
      const { records } = await recordsOf(rows);
      return records[0] ? toExtensionView(records[0]) : null;
    },
    dependencyIndex,
    async reviewContext(vendorScope) {
      const [index, knownTools] = await Promise.all([dependencyIndex(), options.knownTools?.()]);
      return { vendorScope, knownDependencies: (name) => index.get(name), ...(knownTools ? { knownTools } : {}) };
    },
    filter: visible,
  };
}
