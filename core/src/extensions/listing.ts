import { isDuplicateKeyError, type Models } from '../db/index.ts';
import type { ExtensionOrigin } from './origin.ts';

type Kind = 'agent' | 'skill';
const KINDS: readonly Kind[] = ['agent', 'skill'];
/** Above every character a package name may hold, so `prefix` … `prefix + END` is one range. */
const END = '\u007f';
const LISTING_MIGRATION = 'extension-listing';

interface Listed {
  _id: unknown;
  packageName: string;
  kind: string;
  searchText?: string | null;
  origin: Pick<ExtensionOrigin, 'scope' | 'visibility'>;
}

function prefixOf(visibility: 'public' | 'private', scope: string, kind: string): string {
  return visibility === 'public' ? `public/${kind}/` : `private/${scope}/${kind}/`;
}

/** The listing key of a record: where it sits in the marketplace order. */
export function listingKey(row: Listed): string {
  return `${prefixOf(row.origin.visibility, row.origin.scope, row.kind)}${row.packageName}`;
}

/** The ranges a reader of `scope` may see: public rows and its own private rows, per kind. */
export function visibleRanges(scope: string, kind?: Kind): { from: string; to: string; prefix: string }[] {
  return (['public', 'private'] as const).flatMap((visibility) =>
    (kind ? [kind] : KINDS).map((k) => {
      const prefix = prefixOf(visibility, scope, k);
      return { prefix, from: prefix, to: `${prefix}${END}` };
    }),
  );
}

/** Every key under which `packageName` could be visible to `scope`. */
export function visibleKeys(scope: string, packageName: string): string[] {
  return visibleRanges(scope).map((range) => `${range.prefix}${packageName}`);
}

export function createListing(models: Models) {
  const { ExtensionListing, Migration } = models;

  /** Records the row's current key; a key it had before (another kind or visibility) is dropped. */
  async function put(row: Listed): Promise<void> {
    const key = listingKey(row);
    await ExtensionListing.updateOne({ _id: key }, { $set: { extensionId: row._id, packageName: row.packageName, searchText: row.searchText ?? '' } }, { upsert: true });
    const others = (['public', 'private'] as const).flatMap((visibility) => KINDS.map((kind) => `${prefixOf(visibility, row.origin.scope, kind)}${row.packageName}`)).filter((k) => k !== key);
    await ExtensionListing.deleteMany({ _id: { $in: others } });
  }

  /** Drops keys found stale by a reader (the record moved or is gone). */
  async function drop(keys: string[]): Promise<void> {
    if (keys.length > 0) await ExtensionListing.deleteMany({ _id: { $in: keys } });
  }

  /**
   * Builds the listing for records written before it existed: one pass over the records in
   * batches of `_id`, once per database (then one `_id` read). Safe to run in several processes.
   */
  async function backfill(readBatch: (afterId: unknown, size: number) => Promise<Listed[]>): Promise<number> {
    if (await Migration.exists({ _id: LISTING_MIGRATION })) return 0;
    let count = 0;
    for (let after: unknown = null; ; ) {
      const rows = await readBatch(after, 500);
      for (const row of rows) await put(row);
      count += rows.length;
      if (rows.length < 500) break;
      after = rows[rows.length - 1]!._id;
    }
    await Migration.create({ _id: LISTING_MIGRATION, at: new Date() }).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
    return count;
  }

  return { put, drop, backfill };
}

export type Listing = ReturnType<typeof createListing>;
