import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Runs the command in the background, reports its pid on fd 3, and stops it when the pipe on
 * stdin closes (read through fd 4: sh gives a background list /dev/null as its stdin): when the process that started it ends, however it ends (exit, crash, kill -9),
 * the kernel closes that pipe. A TERM, INT or HUP to this shell is passed on to the command.
 * POSIX sh, so it runs wherever the service does.
 */
const TIE_SCRIPT = `
exec 4<&0
"$@" </dev/null 3>&- 4<&- &
child=$!
echo "$child" >&3
exec 3>&-
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
( while read -r _ <&4; do :; done; kill -TERM "$child" 2>/dev/null; sleep 5; kill -KILL "$child" 2>/dev/null ) &
watcher=$!
status=0
while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done
kill "$watcher" 2>/dev/null
exit "$status"
`;

export interface TiedChild {
  /** The shell that watches the tie (signals sent to it reach the command). */
  child: ChildProcess;
  /** The command's own pid, once the shell reported it. */
  pid: Promise<number>;
}

/**
 * Starts `command` tied to this process: it ends when this process ends, even by SIGKILL,
 * where exit handlers never run. The tie is a pipe this process holds open on the watcher's
 * stdin; the command itself gets /dev/null on stdin.
 */
export function spawnTied(command: string, args: string[], options: { stdout?: 'pipe' | 'ignore'; stderr?: 'pipe' | 'ignore'; env?: NodeJS.ProcessEnv } = {}): TiedChild {
  const child = spawn('/bin/sh', ['-c', TIE_SCRIPT, 'tied', command, ...args], {
    stdio: ['pipe', options.stdout ?? 'ignore', options.stderr ?? 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  const pid = new Promise<number>((resolve, reject) => {
    let text = '';
    const report = child.stdio[3] as NodeJS.ReadableStream | null;
    report?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = /^(\d+)\n/.exec(text);
      if (line) resolve(Number(line[1]));
    });
    child.once('exit', () => reject(new Error(`${command} exited before it started`)));
    child.once('error', reject);
  });
  pid.catch(() => undefined);
  // The tie stays open as long as this process lives: it is never written to or ended here.
  (child.stdin as NodeJS.WritableStream & { unref?: () => void } | null)?.on('error', () => undefined);
  return { child, pid };
}

/** Stops a tied child: TERM to its shell (passed on), KILL after `graceMs`; resolves once it has exited. */
export function stopTied(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
