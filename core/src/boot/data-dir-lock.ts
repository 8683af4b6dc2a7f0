import { mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, closeSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/index.ts';

/** Beside the data it guards: which process serves the embedded database of this data directory, and where. */
export const DATA_DIR_LOCK_FILE = 'service.lock';

export interface DataDirOwner {
  pid: number;
  startedAt: string;
  /** Set once the owner's embedded database answers; other processes connect here. */
  databaseUri: string | null;
}

export interface DataDirClaim {
  /** Records where the embedded database answers, for the processes that join it. */
  record(databaseUri: string): void;
  /** Gives the directory up (only while this process still holds it). */
  release(): void;
}

const lockPath = (dataDir: string) => path.join(dataDir, DATA_DIR_LOCK_FILE);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(dataDir: string): DataDirOwner | null {
  try {
    return JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as DataDirOwner;
  } catch {
    return null;
  }
}

/** The live process that holds this data directory, if any. */
export function dataDirOwner(dataDir: string): DataDirOwner | null {
  const owner = readOwner(dataDir);
  return owner && alive(owner.pid) ? owner : null;
}

/**
 * Makes this process the one that serves the data directory's embedded database: the lock file is
 * created exclusively, and a lock left by a process that is gone is taken over. A live holder is
 * refused with the variable that gives this process a directory of its own.
 */
export function claimDataDir(dataDir: string): DataDirClaim {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = lockPath(dataDir);
  const mine: DataDirOwner = { pid: process.pid, startedAt: new Date().toISOString(), databaseUri: null };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify(mine));
      closeSync(fd);
      return claimOf(dataDir, mine);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(dataDir);
    // A lock being written this very moment has no JSON yet: its writer is alive.
    // (Gone by now: not fresh; the retry finds out.)
    const fresh = !owner && Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 5_000;
    if ((owner && owner.pid !== process.pid && alive(owner.pid)) || fresh) {
      throw new ConfigError([
        {
          variable: 'SERVICE_DATA_DIR',
          reason: `${dataDir} is already served by another process (pid ${owner?.pid ?? 'starting'}, see ${file}); stop it, or give this one a data directory of its own`,
        },
      ]);
    }
    // Left by a process that is gone: move it aside (one of several racing starts wins) and retry.
    const aside = `${file}.stale-${process.pid}`;
    try {
      renameSync(file, aside);
      rmSync(aside, { force: true });
    } catch {
      // Another start moved it first.
    }
  }
  throw new Error(`could not take the lock ${file}`);
}

function claimOf(dataDir: string, mine: DataDirOwner): DataDirClaim {
  const file = lockPath(dataDir);
  const holdsIt = () => readOwner(dataDir)?.pid === process.pid;
  return {
    record(databaseUri) {
      const next = `${file}.${process.pid}`;
      writeFileSync(next, JSON.stringify({ ...mine, databaseUri } satisfies DataDirOwner), { mode: 0o600 });
      renameSync(next, file);
    },
    release() {
      if (holdsIt()) rmSync(file, { force: true });
    },
  };
}
