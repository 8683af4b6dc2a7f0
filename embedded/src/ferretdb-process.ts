import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EmbeddedLogger } from './host.ts';
import { canConnect, findFreePort, isPortFree } from './ports.ts';
import { spawnTied, stopTied } from './tied-child.ts';
import type { EmbeddedDatabase } from './database-types.ts';

const START_TIMEOUT_MS = 30_000;

/**
 * Starts FerretDB (SQLite handler) on a loopback port (`port` when it is free, else a free one)
 * with its files under `dataDir`, tied to this process: it ends when this process ends, however
 * it ends (tied-child.ts).
 */
export async function startFerretdb(binary: string, dataDir: string, logger: EmbeddedLogger, options: { port?: number } = {}): Promise<EmbeddedDatabase> {
  const sqliteDir = path.join(dataDir, 'sqlite');
  const stateDir = path.join(dataDir, 'state');
  mkdirSync(sqliteDir, { recursive: true });
  mkdirSync(stateDir, { recursive: true });

  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = attempt === 0 && options.port && (await isPortFree('127.0.0.1', options.port)) ? options.port : await findFreePort();
    const tied = spawnTied(
      binary,
      [
        '--handler=sqlite',
        // WAL (FerretDB's default) with synchronous=NORMAL: a process crash loses nothing (ADR 0009).
        `--sqlite-url=file:${sqliteDir}/?_pragma=synchronous(normal)`,
        `--listen-addr=127.0.0.1:${port}`,
        `--state-dir=${stateDir}`,
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      { stderr: 'pipe' },
    );
    const child = tied.child;
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    try {
      await waitForPort(child, port);
      const pid = await tied.pid;
      logger.debug('ferretdb listening', { port, dataDir, pid });
      return {
        uri: `mongodb://127.0.0.1:${port}/`,
        kind: 'ferretdb',
        description: 'FerretDB 1.24 (SQLite)',
        pid,
        exited: new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))),
        stop: () => stopTied(child),
        stopSync: () => {
          if (child.exitCode === null) child.kill('SIGTERM');
        },
      };
    } catch (error) {
      void stopTied(child, 1_000);
      lastError = new Error(`ferretdb did not start on port ${port}: ${(error as Error).message}\n${stderr}`);
    }
  }
  throw lastError;
}

async function waitForPort(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    if (await canConnect('127.0.0.1', port, 250)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not listening after ${START_TIMEOUT_MS} ms`);
}
