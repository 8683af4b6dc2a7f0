import { spawn } from 'node:child_process';
import { DomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';

export interface NpmRunOptions {
  cwd: string;
  /** The temporary npmrc with the token; passed with --userconfig. */
  userconfig?: string;
}

export interface NpmResult {
  stdout: string;
  stderr: string;
}

/** Runs the `npm` that ships with Node. An interface so tests can observe the argv it spawns. */
export interface NpmRunner {
  run(args: string[], options: NpmRunOptions): Promise<NpmResult>;
}

/**
 * The real runner. The environment is trimmed of npm_config_* (a parent pnpm or npm would
 * otherwise leak its registry and auth settings into the child) and only the given userconfig
 * is read.
 */
export function createNpmRunner(logger: Logger, onSpawn?: (argv: string[]) => void): NpmRunner {
  return {
    run(args, { cwd, userconfig }) {
      const argv = [...args, ...(userconfig ? ['--userconfig', userconfig] : []), '--no-audit', '--no-fund', '--no-update-notifier'];
      onSpawn?.(argv);
      const env = Object.fromEntries(Object.entries(process.env).filter(([key, value]) => value !== undefined && !/^npm_/i.test(key))) as NodeJS.ProcessEnv;
      logger.debug('npm', { argv: argv.join(' ') });
      return new Promise((resolve, reject) => {
        const child = spawn('npm', argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('error', reject);
        child.once('close', (code) => {
          if (code === 0) return resolve({ stdout, stderr });
          const tail = stderr.split('\n').filter((line) => /npm (error|ERR)/.test(line)).slice(0, 6).join('\n') || stderr.slice(-600);
          logger.warn('npm command failed', { command: args[0], code, stderr: tail });
          reject(new DomainError('UPSTREAM_FAILED', `npm ${args[0]} failed (exit ${code}): ${tail}`));
        });
      });
    },
  };
}
