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
  /**
   * Whether the server answers, as the driver last saw it (it checks every second): false while
   * it is down, so a request can be answered 503 at once instead of waiting for a server to select.
   */
  available(): boolean;
  /** Moves the connection to another address of the same data (an embedded server restarted on another port). */
  reconnect(uri: string): Promise<void>;
  close(): Promise<void>;
}

const HEARTBEAT_MS = 1_000;
/**
 * How long a new socket may take to connect and greet, unless the URI says otherwise. The driver's
 * 30 s default keeps a client whose server vanished (its port now held by something that accepts
 * but never answers) closing for that long, and `reconnect` with it.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The driver's pool, unless the URI sets it (docs/operations.md, "Database connections"): the
 * driver's default of 100 connections, none ever closed, left 313 open descriptors on the
 * embedded FerretDB after a load test. More connections than this buy nothing on a 2-core
 * machine whose server runs one SQLite write at a time; commands past it wait in the driver's
 * queue. A connection idle for 30 s is closed, and none is kept open for its own sake.
 */
export const POOL = { maxPoolSize: 32, minPoolSize: 0, maxIdleTimeMS: 30_000 } as const;

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
  const connectOptions = (at: string) => ({
    bufferCommands: false,
    autoIndex: false,
    // A server that stops answering is noticed within about a second, not ten.
    heartbeatFrequencyMS: HEARTBEAT_MS,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
    // Options passed here win over the URI's: an operator's `connectTimeoutMS=` in MONGODB_URI is kept.
    ...(/[?&]connectTimeoutMS=/i.test(at) ? {} : { connectTimeoutMS: CONNECT_TIMEOUT_MS }),
    ...Object.fromEntries(Object.entries(POOL).filter(([name]) => !new RegExp(`[?&]${name}=`, 'i').test(at))),
    ...(options.dbName ? { dbName: options.dbName } : {}),
  });
  const connection = mongoose.createConnection(uri, connectOptions(uri));
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
    available: () => connection.readyState === mongoose.ConnectionStates.connected,
    async reconnect(uri) {
      // Not forced: mongoose refuses every later operation of a connection once force-closed.
      await connection.close().catch(() => undefined);
      await connection.openUri(uri, connectOptions(uri));
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
