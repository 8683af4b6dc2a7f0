import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { connectDatabase, type Database, type ServerKind } from '../db/index.ts';

/** What the global setup hands every test file. */
declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    mongoKind: ServerKind;
  }
}

/** The provided server URI with a database name; tests that start a process pass this on. */
export function testDatabaseUri(dbName: string): string {
  const url = new URL(inject('mongoUri'));
  url.pathname = `/${dbName}`;
  return url.toString();
}

/** A fresh database name for this test file: short, unique and readable in server logs. */
export function uniqueDatabaseName(): string {
  const file = expect.getState().testPath ?? 'test';
  const stem = path.basename(file).replace(/\.test\.tsx?$/, '').replace(/[^a-zA-Z0-9]/g, '_').slice(0, 30);
  return `t_${stem}_${randomBytes(4).toString('hex')}`;
}

/**
 * Gives the calling test file its own database on the real test server, with the service's
 * indexes, and drops it when the file ends. Call at the top level of a test file.
 */
export function useTestDatabase(): { readonly db: Database; readonly name: string; readonly uri: string } {
  let db: Database | undefined;
  let name = '';
  beforeAll(async () => {
    name = uniqueDatabaseName();
    db = await connectDatabase(testDatabaseUri(name), { serverSelectionTimeoutMS: 5_000 });
  });
  afterAll(async () => {
    if (!db) return;
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
  });
  return {
    get db() {
      if (!db) throw new Error('useTestDatabase(): the database is ready only inside tests and hooks');
      return db;
    },
    get name() {
      return name;
    },
    get uri() {
      return testDatabaseUri(name);
    },
  };
}
