import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** SIGTERM, wait for the exit, then remove the process's scratch directory, if it has one. */
export function stopChild(child: ChildProcess, scratchDir?: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', done);
    child.kill('SIGTERM');
  });
}
