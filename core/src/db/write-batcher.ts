import type { mongo } from 'mongoose';

/**
 * Documents or updates gathered into one command at most. The embedded FerretDB 1.24 (SQLite)
 * stopped answering, every connection of the web process waiting, within seconds of 128
 * concurrent sends with batches of several hundred documents (three runs of three, 2026-11-26;
 * not understood further); with at most 32 it answered every send of the same load.
 */
const MAX_BATCH = 32;

/** A write error of one caller's part of a batch, shaped as the driver's for its own insert: `index` counts from its first document. */
export class BatchedWriteError extends Error {
  override name = 'BatchedWriteError';
  readonly code: unknown;
  readonly index: number;
  readonly writeErrors: { index: number; code?: unknown; errmsg?: string }[];
  constructor(writeError: { index: number; code?: unknown; errmsg?: string }, index: number, cause: unknown) {
    super(writeError.errmsg ?? 'write error', { cause });
    this.code = writeError.code;
    this.index = index;
    this.writeErrors = [{ ...writeError, index }];
  }
}

/** The driver's first write error of an ordered or unordered bulk write, with its index in the batch. */
function writeErrorsOf(error: unknown): { index: number; code?: unknown; errmsg?: string }[] | null {
  const list = (error as { writeErrors?: unknown }).writeErrors;
  if (Array.isArray(list) && list.every((entry) => typeof (entry as { index?: unknown })?.index === 'number')) return list as { index: number; code?: unknown; errmsg?: string }[];
  return null;
}

/**
 * Group commit for one collection's inserts: every insert asked for while the previous batch is
 * on its way goes out in the next one, as one ordered `insertMany` (one command instead of one
 * per caller). A batch is sent as soon as the one before it returns, so a lone caller waits for
 * nothing. Each caller's documents stay together and in order, and each caller learns exactly
 * what happened to its own documents, as if it had inserted them alone with `ordered: true`:
 *
 * - before the first failing document: inserted, the caller's promise resolves;
 * - the caller whose document failed: its promise rejects with a BatchedWriteError whose `index`
 *   counts from the caller's own first document (its documents before it are in);
 * - callers after it were never tried by the server: they go out again in the next batch,
 *   unaware (another writer's duplicate key cannot lose or reorder their documents);
 * - an error without a position (the server went away): every caller of the batch gets it.
 */
export function createInsertBatcher(collection: mongo.Collection) {
  interface Entry {
    documents: mongo.Document[];
    resolve: () => void;
    reject: (error: unknown) => void;
  }
  const queue: Entry[] = [];
  let sending = false;

  async function send(batch: Entry[]): Promise<void> {
    const documents = batch.flatMap((entry) => entry.documents);
    try {
      await collection.insertMany(documents as never[], { ordered: true });
      for (const entry of batch) entry.resolve();
      return;
    } catch (error) {
      const failed = writeErrorsOf(error)?.[0];
      if (!failed) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      const untried: Entry[] = [];
      let offset = 0;
      for (const entry of batch) {
        const end = offset + entry.documents.length;
        if (end <= failed.index) entry.resolve();
        else if (offset <= failed.index) entry.reject(new BatchedWriteError(failed, failed.index - offset, error));
        else untried.push(entry);
        offset = end;
      }
      queue.unshift(...untried);
    }
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch: Entry[] = [];
        let size = 0;
        while (queue.length > 0 && (batch.length === 0 || size + queue[0]!.documents.length <= MAX_BATCH)) {
          const entry = queue.shift()!;
          size += entry.documents.length;
          batch.push(entry);
        }
        await send(batch);
      }
    } finally {
      sending = false;
    }
  }

  return {
    /** Inserts `documents` in order, in the next batch: resolves once they are stored, rejects as an ordered insert of them alone would. */
    insert(documents: mongo.Document[]): Promise<void> {
      if (documents.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        queue.push({ documents, resolve, reject });
        if (sending) return;
        sending = true;
        // After the current task's other inserts have joined the queue.
        queueMicrotask(() => void drain());
      });
    },
  };
}

/**
 * Group commit for one collection's single-document updates: those asked for while the previous
 * batch is on its way go out as one unordered `bulkWrite` (they are independent of each other:
 * each names its own document). A caller's promise rejects with its own write error only.
 */
export function createUpdateBatcher(collection: mongo.Collection) {
  interface Entry {
    filter: mongo.Document;
    update: mongo.Document;
    resolve: () => void;
    reject: (error: unknown) => void;
  }
  const queue: Entry[] = [];
  let sending = false;

  async function send(batch: Entry[]): Promise<void> {
    try {
      await collection.bulkWrite(batch.map((entry) => ({ updateOne: { filter: entry.filter, update: entry.update } })), { ordered: false });
      for (const entry of batch) entry.resolve();
    } catch (error) {
      const failed = writeErrorsOf(error);
      if (!failed) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      const byIndex = new Map(failed.map((writeError) => [writeError.index, writeError]));
      batch.forEach((entry, index) => {
        const writeError = byIndex.get(index);
        if (writeError) entry.reject(new BatchedWriteError(writeError, 0, error));
        else entry.resolve();
      });
    }
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await send(queue.splice(0, MAX_BATCH));
    } finally {
      sending = false;
    }
  }

  return {
    /** `updateOne(filter, update)`, in the next batch. */
    updateOne(filter: mongo.Document, update: mongo.Document): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        queue.push({ filter, update, resolve, reject });
        if (sending) return;
        sending = true;
        queueMicrotask(() => void drain());
      });
    },
  };
}

export type InsertBatcher = ReturnType<typeof createInsertBatcher>;
export type UpdateBatcher = ReturnType<typeof createUpdateBatcher>;
