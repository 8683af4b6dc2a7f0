import { mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, closeSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import { isAlive } from '../process/index.ts';

/** Beside the data it guards: which process serves the embedded database of this data directory, and where. */
export const DATA_DIR_LOCK_FILE = 'service.lock';

export interface DataDirOwner {
  pid: number;
  startedAt: string;
  /** Set once the owner's embedded database answers; other processes connect here. */
  databaseUri: string | null;
  /** The embedded database's own process, so a later start can tell it outlived its owner. */
  databasePid?: number | null;
}

export interface DataDirClaim {
  /** Records where the embedded database answers (and its process), for the processes that join it. */
  record(databaseUri: string, databasePid?: number): void;
  /** Gives the directory up (only while this process still holds it). */
  release(): void;
}

const lockPath = (dataDir: string) => path.join(dataDir, DATA_DIR_LOCK_FILE);

const alive = isAlive;

function readOwner(dataDir: string): DataDirOwner | null {
  try {
    return JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as DataDirOwner;
  } catch {
    return null;
  }
}

/** What the lock says, whether its process is alive or not. */
export const readDataDirLock = readOwner;

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
    record(databaseUri, databasePid) {
      const next = `${file}.${process.pid}`;
      writeFileSync(next, JSON.stringify({ ...mine, databaseUri, databasePid: databasePid ?? null } satisfies DataDirOwner), { mode: 0o600 });
      renameSync(next, file);
    },
    release() {
      if (holdsIt()) rmSync(file, { force: true });
    },
  };
}

/**
 * Ends an embedded database that outlived the process that started it (its owner is gone, it is
 * not), so a new start never runs a second server on the same files. Only a process whose command
 * line names this data directory is stopped (where /proc says so); TERM, then KILL after 5 s.
 */
export async function stopOrphanedDatabase(dataDir: string, logger: Logger): Promise<void> {
  const owner = readOwner(dataDir);
  const pid = owner?.databasePid;
  if (!owner || !pid || alive(owner.pid) || !alive(pid) || !servesDataDir(pid, dataDir)) return;
  logger.warn('the embedded database of a service that is gone is still running on this data directory; stopping it', { pid, dataDir });
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Whether `pid`'s command line names `dataDir` (true where there is no /proc to ask). */
function servesDataDir(pid: number, dataDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.resolve(dataDir));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !statSync('/proc', { throwIfNoEntry: false });
  }
}
