import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/**
 * Waits until a child's stdout or stderr prints a line matching `pattern` (the address it listens
 * on, say) and answers the first capture group; rejects when the child exits first or after
 * `timeoutMs`, with what the child printed. `output()` keeps collecting afterwards.
 */
export async function waitForOutput(child: ChildProcess & { stdout: Readable; stderr: Readable }, pattern: RegExp, what: string, timeoutMs: number): Promise<{ value: string; output: () => string }> {
  let output = '';
  const value = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        child.removeListener('exit', onExit);
        resolve(match[1]!);
      }
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with code ${code}:\n${output}`));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
  return { value, output: () => output };
}
