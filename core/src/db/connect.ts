import mongoose, { type Connection } from 'mongoose';
import { bindModels, type Models } from './models/index.ts';
import { readServerProfile, serverTime, type ServerProfile } from './server-profile.ts';
import { followStorage, type StorageFailure } from './storage-state.ts';

export interface Database {
  connection: Connection;
  models: Models;
  /** True when the server answers a ping within the timeout. */
  ping(timeoutMs?: number): Promise<boolean>;
  /** The last write of this process that failed for lack of disk space, until a write that stores something succeeds; else null. */
  storageFailure(): StorageFailure | null;
  /** Creates the indexes every model declares (idempotent). */
  syncIndexes(): Promise<void>;
  /** What the server can be trusted with (read once per connection). */
  profile(): Promise<ServerProfile>;
  /** The server's clock. */
  serverTime(): Promise<Date>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** How long to wait for a server before an operation fails; short in tests, default 10 s. */
  serverSelectionTimeoutMS?: number;
  dbName?: string;
}

/**
 * Creates the service's one connection. Commands are not buffered while disconnected:
 * an operation against a down database fails promptly instead of hanging the caller.
 */
export function createDatabase(uri: string, options: ConnectOptions = {}): Database {
  const connection = mongoose.createConnection(uri, {
    bufferCommands: false,
    autoIndex: false,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
    ...(options.dbName ? { dbName: options.dbName } : {}),
  });
  // The initial connect is awaited through `ready()`; this keeps an unhandled rejection away.
  connection.asPromise().catch(() => undefined);
  const models = bindModels(connection);
  const storageFailure = followStorage(connection);
  let profile: Promise<ServerProfile> | undefined;
  const readProfile = () => {
    profile ??= connection.asPromise().then(() => readServerProfile(connection.db!));
    profile.catch(() => (profile = undefined));
    return profile;
  };

  return {
    connection,
    models,
    storageFailure,
    async ping(timeoutMs = 2_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const probe = (async () => {
        if (connection.readyState !== 1) await connection.asPromise();
        await connection.db!.command({ ping: 1 });
        return true as const;
      })().catch(() => false as const);
      try {
        return await Promise.race([probe, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async syncIndexes() {
      await connection.asPromise();
      const { ttlIndexes } = await readProfile();
      for (const model of Object.values(models)) {
        if (ttlIndexes) await model.createIndexes();
        // Without TTL indexes the same index serves the sweep that deletes expired rows.
        else for (const [fields, options] of model.schema.indexes()) await model.collection.createIndex(fields as Record<string, 1 | -1>, withoutExpiry(options));
      }
    },
    profile: readProfile,
    serverTime: async () => {
      await connection.asPromise();
      return serverTime(connection.db!);
    },
    async close() {
      await connection.close().catch(() => undefined);
    },
  };
}

/** Index options less `expireAfterSeconds`, for servers that refuse it. */
function withoutExpiry(options: Record<string, unknown>): Record<string, unknown> {
  const { expireAfterSeconds: _ignored, ...rest } = options;
  return rest;
}

/** Waits for the first connection, failing with a readable message. */
export async function connectDatabase(uri: string, options: ConnectOptions = {}): Promise<Database> {
  const database = createDatabase(uri, options);
  await database.connection.asPromise();
  await database.syncIndexes();
  return database;
}
