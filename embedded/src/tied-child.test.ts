import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** A process that starts a tied `sleep` and reports its pid, so the test can kill that process hard. */
const PARENT = `
import { spawnTied } from ${JSON.stringify(new URL('./tied-child.ts', import.meta.url).pathname)};
const { pid } = spawnTied('sleep', ['60']);
console.log(await pid);
setInterval(() => {}, 1000);
`;

/** Whether a process with this pid is alive (EPERM: alive, someone else's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('a tied child', () => {
  it('ends when the process that started it is killed with SIGKILL', async () => {
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
    const sleeperPid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      parent.once('exit', () => reject(new Error('the parent exited early')));
    });
    expect(isAlive(sleeperPid)).toBe(true);
    parent.kill('SIGKILL');
    // Not a child of this process, so no exit event reaches it here: its pid is asked until it is gone.
    await expect.poll(() => isAlive(sleeperPid), { timeout: 15_000, interval: 50 }).toBe(false);
  });

  it('ends with its own stop, and passes the stop on to the command', async () => {
    const { spawnTied, stopTied } = await import('./tied-child.ts');
    const tied = spawnTied('sleep', ['60']);
    const pid = await tied.pid;
    expect(isAlive(pid)).toBe(true);
    await stopTied(tied.child);
    await expect.poll(() => isAlive(pid), { timeout: 15_000, interval: 50 }).toBe(false);
  });
});
