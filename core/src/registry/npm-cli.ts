import { spawn } from 'node:child_process';
import { DomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';

export interface NpmRunOptions {
  cwd: string;
  /** The temporary npmrc with the token; passed with --userconfig. */
  userconfig?: string;
  /**
   * The forward proxy every request of npm's goes through (the service's checked proxy): npm then
   * takes no proxy settings of its own, from the environment or a config file.
   */
  proxy?: string;
}

export interface NpmResult {
  stdout: string;
  stderr: string;
}

/** Runs the `npm` that ships with Node. An interface so tests can observe the argv it spawns. */
export interface NpmRunner {
  run(args: string[], options: NpmRunOptions): Promise<NpmResult>;
}

/** What npm needs from the service's environment, and nothing else (never the master key or LLM keys). */
const NPM_ENV = new Set(['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'SYSTEMROOT', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR']);
const PROXY_ENV = /^(https?_proxy|no_proxy|all_proxy)$/i;

/** The child's environment: the variables npm needs, and proxy settings unless the service gives it its own proxy; the userconfig holds the token. */
export function npmChildEnv(parent: NodeJS.ProcessEnv, options: { proxyVariables: boolean } = { proxyVariables: true }): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(parent).filter(([key, value]) => value !== undefined && (NPM_ENV.has(key.toUpperCase()) || (options.proxyVariables && PROXY_ENV.test(key))))) as NodeJS.ProcessEnv;
}

/** npm's flags for sending everything through `proxy`, whatever a config file says (an empty noproxy bypasses nothing). */
const proxyFlags = (proxy: string) => [`--proxy=${proxy}`, `--https-proxy=${proxy}`, '--noproxy='];

/**
 * The real runner. The child gets only `npmChildEnv` (no npm_config_* a parent pnpm or npm would
 * leak, no secret of the service's) and reads only the given userconfig.
 */
export function createNpmRunner(logger: Logger, onSpawn?: (argv: string[]) => void): NpmRunner {
  return {
    run(args, { cwd, userconfig, proxy }) {
      const argv = [...args, ...(userconfig ? ['--userconfig', userconfig] : []), ...(proxy ? proxyFlags(proxy) : []), '--no-audit', '--no-fund', '--no-update-notifier'];
      onSpawn?.(argv);
      const env = npmChildEnv(process.env, { proxyVariables: !proxy });
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
