import type { mongo } from 'mongoose';
import { detectServerKind, type ServerKind } from './server-kind.ts';

/**
 * What the database server in use can be trusted with. FerretDB 1.x (the embedded offline
 * fallback) evaluates an update's filter and writes the whole document back in separate steps,
 * so two racing conditional updates can both win and a `$set` can undo another (ADR 0008); it
 * also has no TTL indexes and uses no secondary index for reads. MongoDB and FerretDB 2
 * (PostgreSQL with DocumentDB) do all of these.
 */
export interface ServerProfile {
  kind: ServerKind;
  /** A conditional update is atomic: its filter decides a race. */
  atomicUpdates: boolean;
  /** Indexes with `expireAfterSeconds` are honoured. */
  ttlIndexes: boolean;
}

export async function readServerProfile(db: Pick<mongo.Db, 'command'>): Promise<ServerProfile> {
  const kind = await detectServerKind(db);
  const modern = kind !== 'ferretdb';
  return { kind, atomicUpdates: modern, ttlIndexes: modern };
}

/** The database server's clock (`hello`'s `localTime`), so hosts with skewed clocks agree on lease expiry. */
export async function serverTime(db: Pick<mongo.Db, 'command'>): Promise<Date> {
  const hello = await db.command({ hello: 1 });
  return hello.localTime instanceof Date ? hello.localTime : new Date();
}
