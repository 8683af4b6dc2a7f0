import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from './connect.ts';
import { testDatabaseUri, uniqueDatabaseName } from '../testing/index.ts';

/** Follows the driver's pool: connections open now, the most open at once, and why each closed. */
function watchPool(database: Database) {
  const client = database.connection.getClient();
  let open = 0;
  let most = 0;
  const closed: string[] = [];
  client.on('connectionCreated', () => (most = Math.max(most, ++open)));
  client.on('connectionClosed', (event: { reason: string }) => {
    open--;
    closed.push(event.reason);
  });
  return { open: () => open, most: () => most, closed };
}

describe('the database connection pool', () => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('opens a bounded number of connections however many commands wait, and closes idle ones', async () => {
    database = createDatabase(testDatabaseUri(uniqueDatabaseName()));
    await database.connection.asPromise();
    const pool = watchPool(database);
    // The driver's defaults are 100 connections, none closed for idleness.
    const { maxPoolSize, maxIdleTimeMS } = database.connection.getClient().options;
    expect(maxPoolSize).toBeLessThanOrEqual(32);
    expect(maxIdleTimeMS).toBeGreaterThan(0);
    const collection = database.connection.db!.collection('pool_probe');
    await Promise.all(Array.from({ length: 400 }, (_, i) => collection.insertOne({ i })));
    expect(pool.most()).toBeGreaterThan(1);
    expect(pool.most()).toBeLessThanOrEqual(32);
    expect(await collection.countDocuments()).toBe(400);
    await database.connection.dropDatabase();
  });

  it('closes connections left idle, and the URI may set the pool', async () => {
    database = createDatabase(`${testDatabaseUri(uniqueDatabaseName())}?maxIdleTimeMS=200&maxPoolSize=4`);
    await database.connection.asPromise();
    const pool = watchPool(database);
    const collection = database.connection.db!.collection('pool_probe');
    await Promise.all(Array.from({ length: 40 }, (_, i) => collection.insertOne({ i })));
    expect(pool.most()).toBeLessThanOrEqual(4);
    while (pool.open() > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.closed.every((reason) => reason === 'idle')).toBe(true);
    await database.connection.dropDatabase();
  });
});
