/**
 * insertMany in slices of at most `batchSize` documents. FerretDB 2 refuses an insert command of
 * more than 25 000 documents while it advertises a maxWriteBatchSize of 100 000, so the driver
 * sends bigger batches whole.
 */
export async function insertInBatches<T>(
  collection: { insertMany(docs: T[], options: { ordered: boolean }): Promise<unknown> },
  docs: T[],
  options: { ordered: boolean; batchSize?: number },
): Promise<void> {
  const batchSize = options.batchSize ?? 20_000;
  for (let from = 0; from < docs.length; from += batchSize) {
    await collection.insertMany(docs.slice(from, from + batchSize), { ordered: options.ordered });
  }
}
