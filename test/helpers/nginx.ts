import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canConnect, findFreePort } from '@service/core/net';

/** Debian's nginx binary, or null when the package is not installed (scripts/install-test-deps.sh installs it). */
export function findNginx(): string | null {
  for (const candidate of ['/usr/sbin/nginx', ...(process.env.PATH ?? '').split(':').map((dir) => path.join(dir, 'nginx'))]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Why a test that needs nginx cannot run here, or null. */
export function nginxSkipReason(): string | null {
  return findNginx() ? null : 'nginx is not installed (Debian package `nginx`; scripts/install-test-deps.sh installs it)';
}

/** The address nginx connects to the web processes from: listed alone in their SERVICE_TRUSTED_PROXIES. */
export const PROXY_SOURCE_ADDRESS = '127.0.0.2';

export interface AccessLogLine {
  /** The web process that answered, `127.0.0.1:<port>` (several when nginx tried more than one). */
  upstream: string;
  status: number;
  method: string;
  path: string;
}

export interface RunningNginx {
  url: string;
  port: number;
  /** The configuration nginx runs with (docs/operations.md shows the same settings). */
  config: string;
  /** The requests nginx has finished, oldest first. */
  accessLog(): AccessLogLine[];
  stop(): Promise<void>;
}

/**
 * The settings the service needs from a reverse proxy in front of several instances: SSE passed
 * through unbuffered on kept-alive HTTP/1.1 upstream connections, read timeouts longer than any
 * stream's quiet spell, the client's address appended to X-Forwarded-For. The server block is
 * what docs/operations.md shows.
 */
export function proxyServerBlock(options: { listen: string; upstreams: string[]; bind?: string }): string {
  return `upstream service {
    ${options.upstreams.map((upstream) => `server ${upstream} max_fails=1 fail_timeout=5s;`).join('\n    ')}
    keepalive 64;
    # Below the service's keepAliveTimeout (5 s), so nginx never reuses a connection the service is closing.
    keepalive_timeout 4s;
  }
  server {
    listen ${options.listen};
    client_max_body_size 64m;
    location / {
      proxy_pass http://service;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Server-sent events go to the client as they are written.
      proxy_buffering off;
      proxy_cache off;
      # Streams stay open while a run works; the service sends a keep-alive comment meanwhile.
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      # A process that is down is skipped for requests not yet sent to it; a POST once sent is never sent twice.
      proxy_next_upstream error timeout;${options.bind ? `\n      proxy_bind ${options.bind};` : ''}
    }
  }`;
}

/**
 * Starts nginx in front of `upstreams` (host:port) as an unprivileged child: its configuration,
 * pid file, logs and temporary files in a temp directory (`-p <dir> -c <conf>`, `daemon off`), on
 * a free loopback port (or `port`, chosen free by the caller). It connects to the upstreams from PROXY_SOURCE_ADDRESS.
 */
export async function startNginx(options: { upstreams: string[]; workers?: number; port?: number }): Promise<RunningNginx> {
  const binary = findNginx();
  if (!binary) throw new Error(nginxSkipReason()!);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'service-nginx-'));
  // Run as root (a container), nginx's workers drop to `nobody`: they need to reach the directory.
  chmodSync(dir, 0o755);
  const port = options.port ?? (await findFreePort());
  const conf = path.join(dir, 'nginx.conf');
  const accessLog = path.join(dir, 'access.log');
  const config = `daemon off;
worker_processes ${options.workers ?? 1};
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  log_format upstreams '$upstream_addr $status $request_method $request_uri';
  access_log ${accessLog} upstreams;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${proxyServerBlock({ listen: `127.0.0.1:${port}`, upstreams: options.upstreams, bind: PROXY_SOURCE_ADDRESS })}
}
`;
  writeFileSync(conf, config);
  // -e: the error log before the configuration is read (else /var/log/nginx, not writable unprivileged).
  const child: ChildProcess = spawn(binary, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const errorLog = () => (existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : '');
  for (let waited = 0; !(await canConnect('127.0.0.1', port)); waited += 50) {
    if (child.exitCode !== null || waited > 10_000) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start on port ${port}:\n${output}\n${errorLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    config,
    accessLog: () =>
      (existsSync(accessLog) ? readFileSync(accessLog, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [upstream = '', status = '0', method = '', requestPath = ''] = line.split(' ');
          return { upstream, status: Number(status), method, path: requestPath };
        }),
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', done);
        // SIGTERM: nginx's fast shutdown (streams still open are closed, not waited for).
        child.kill('SIGTERM');
      }),
  };
}
