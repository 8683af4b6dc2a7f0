import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { isAlive } from '../process/index.ts';
import { claimDataDir, DATA_DIR_LOCK_FILE, dataDirOwner, stopOrphanedDatabase } from './data-dir-lock.ts';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'data-dir-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Another live process holding the lock: a sleeping child whose pid the lock names. */
async function heldByAnotherProcess(dir: string) {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  writeFileSync(path.join(dir, DATA_DIR_LOCK_FILE), JSON.stringify({ pid: child.pid, startedAt: new Date().toISOString(), databaseUri: 'mongodb://127.0.0.1:1/service' }));
  return child;
}

describe('the data directory lock', () => {
  it('is taken by one process, records where its database answers, and is given up on release', () => {
    const dir = fresh();
    const claim = claimDataDir(dir);
    expect(dataDirOwner(dir)).toMatchObject({ pid: process.pid, databaseUri: null });
    claim.record('mongodb://127.0.0.1:27017/service');
    expect(dataDirOwner(dir)).toMatchObject({ pid: process.pid, databaseUri: 'mongodb://127.0.0.1:27017/service' });
    claim.release();
    expect(existsSync(path.join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
    expect(dataDirOwner(dir)).toBeNull();
  });

  it('refuses a second owner while the first is alive, naming SERVICE_DATA_DIR', async () => {
    const dir = fresh();
    const other = await heldByAnotherProcess(dir);
    try {
      expect(dataDirOwner(dir)).toMatchObject({ pid: other.pid, databaseUri: 'mongodb://127.0.0.1:1/service' });
      expect(() => claimDataDir(dir)).toThrow(/SERVICE_DATA_DIR: .* is already served by another process \(pid \d+/);
    } finally {
      other.kill();
    }
  });

  it('takes over a lock whose process is gone', async () => {
    const dir = fresh();
    const other = await heldByAnotherProcess(dir);
    const gone = new Promise((resolve) => other.once('exit', resolve));
    other.kill();
    await gone;
    expect(dataDirOwner(dir)).toBeNull();
    const claim = claimDataDir(dir);
    expect(JSON.parse(readFileSync(path.join(dir, DATA_DIR_LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    claim.release();
  });

  it('leaves a lock alone that another process holds when asked to release', async () => {
    const dir = fresh();
    const claim = claimDataDir(dir);
    rmSync(path.join(dir, DATA_DIR_LOCK_FILE));
    const other = await heldByAnotherProcess(dir);
    try {
      claim.release();
      expect(dataDirOwner(dir)).toMatchObject({ pid: other.pid });
    } finally {
      other.kill();
    }
  });

  it('stops a database that outlived its owner (its command line names this data directory), and nothing else', async () => {
    const dir = fresh();
    // A "database" serving this directory, and one serving another: both outlive a dead owner.
    const orphan = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', path.join(dir, 'db')], { stdio: 'ignore' });
    const stranger = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', '/elsewhere'], { stdio: 'ignore' });
    await Promise.all([orphan, stranger].map((child) => new Promise((resolve) => child.once('spawn', resolve))));
    try {
      const owner = await heldByAnotherProcess(dir);
      await new Promise((resolve) => {
        owner.once('exit', resolve);
        owner.kill('SIGKILL');
      });
      const lock = path.join(dir, DATA_DIR_LOCK_FILE);
      writeFileSync(lock, JSON.stringify({ ...JSON.parse(readFileSync(lock, 'utf8')), databasePid: orphan.pid }));
      await stopOrphanedDatabase(dir, createMemoryLogger());
      expect(isAlive(orphan.pid!)).toBe(false);
      writeFileSync(lock, JSON.stringify({ ...JSON.parse(readFileSync(lock, 'utf8')), databasePid: stranger.pid }));
      await stopOrphanedDatabase(dir, createMemoryLogger());
      expect(isAlive(stranger.pid!)).toBe(true);
    } finally {
      orphan.kill('SIGKILL');
      stranger.kill('SIGKILL');
    }
  });
});
