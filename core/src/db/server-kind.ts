import type { mongo } from 'mongoose';

/**
 * The MongoDB-wire servers the service runs on. They answer the same commands but differ where
 * it matters for plans and leases: `ferretdb2` is FerretDB 2 on PostgreSQL with DocumentDB
 * (real indexes, PostgreSQL's planner, no transactions); `ferretdb` is FerretDB 1.x, the
 * embedded SQLite fallback.
 */
export type ServerKind = 'mongodb' | 'ferretdb2' | 'ferretdb';

interface BuildInfo {
  ferretdb?: { version?: string };
  ferretdbVersion?: string;
}

/** Asks the server behind `db` (any database on it) which kind it is, through `buildInfo`. */
export async function detectServerKind(db: Pick<mongo.Db, 'command'>): Promise<ServerKind> {
  return serverKindOf((await db.command({ buildInfo: 1 })) as BuildInfo);
}

/** FerretDB 2 names itself under `ferretdb`, FerretDB 1.x under `ferretdbVersion`; MongoDB has neither. */
export function serverKindOf(info: BuildInfo): ServerKind {
  if (info.ferretdb) return 'ferretdb2';
  if (info.ferretdbVersion) return 'ferretdb';
  return 'mongodb';
}
