/** MongoDB's duplicate-key error (E11000), as both mongod and FerretDB report it. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/**
 * An unordered insert of rows keyed so that a repeat lands on the same `_id` (an outbox row, a
 * released slot, a migrated document): a row whose key is taken was stored before and counts as
 * stored. Any other failure, even beside duplicates, is thrown.
 */
export async function insertAbsorbingDuplicates(collection: { insertMany(documents: never[], options: { ordered: false }): Promise<unknown> }, documents: object[]): Promise<void> {
  try {
    await collection.insertMany(documents as never[], { ordered: false });
  } catch (error) {
    const writeErrors = (error as { writeErrors?: unknown[] }).writeErrors;
    const failures = Array.isArray(writeErrors) && writeErrors.length > 0 ? writeErrors : [error];
    if (!failures.every((failure) => isDuplicateKeyError(failure) || isDuplicateKeyError((failure as { err?: unknown }).err))) throw error;
  }
}
