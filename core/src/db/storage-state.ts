import type { Connection } from 'mongoose';
import { storageFullReason } from '../errors/index.ts';

export interface StorageFailure {
  /** When the write failed (ISO 8601). */
  at: string;
  reason: string;
}

/** Writes that store something: one of these succeeding shows there is space again (a delete may succeed on a full disk). */
const STORING = new Set(['insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne', 'findOneAndUpdate', 'findOneAndReplace', 'bulkWrite']);
const WRITES = new Set([...STORING, 'deleteOne', 'deleteMany', 'findOneAndDelete']);

/**
 * Follows the writes of this process on `connection` (mongoose's `operation-end`, which models
 * and `Model.collection` calls alike emit) and answers the last one that failed for lack of
 * storage, until a write that stores something succeeds again.
 */
export function followStorage(connection: Connection): () => StorageFailure | null {
  let failure: StorageFailure | null = null;
  connection.on('operation-end', (event: { method?: string; error?: unknown }) => {
    if (!event.method || !WRITES.has(event.method)) return;
    if (event.error === undefined) {
      if (STORING.has(event.method)) failure = null;
      return;
    }
    const reason = storageFullReason(event.error);
    if (reason) failure = { at: new Date().toISOString(), reason };
  });
  return () => failure;
}
