import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { signInCookie, trpcCall, type RunningService } from './service-process.ts';
import { stopChild } from './stop-child.ts';

/** The bin an MCP client starts (`node <checkout>/mcp-server/bin/service-mcp.js --stdio`). */
export const MCP_BIN = fileURLToPath(new URL('../../mcp-server/bin/service-mcp.js', import.meta.url));
/** The Inspector's CLI from the test package's bin folder (its shebang finds the project's Node on the PATH). */
export const INSPECTOR = fileURLToPath(new URL('../node_modules/.bin/mcp-inspector', import.meta.url));

/** The environment an MCP server process of a test instance runs with. */
export function mcpEnv(mongodbUri: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'test',
    MONGODB_URI: mongodbUri,
    SERVICE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'mcp-')),
    SERVICE_BASE_URL: 'http://127.0.0.1:3999',
    SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
    SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
    SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
    // The CMS sites of the tests listen on loopback.
    SERVICE_OUTBOUND_ALLOW_PRIVATE: 'true',
    ...extra,
  };
}

/** The standalone MCP server in HTTP mode, resolved once it prints its URL. */
export async function startMcpHttp(env: Record<string, string>, port = 0): Promise<{ url: string; output(): string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [MCP_BIN, '--http', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcp-server did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /mcp-server listening on (http:\/\/\S+?\/mcp)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mcp-server exited ${code}:\n${output}`)));
  });
  // The data directory is the caller's (`cleanup`), possibly a running service's.
  return { url, output: () => output, stop: () => stopChild(child) };
}

export function cleanup(env: Record<string, string>) {
  rmSync(env.SERVICE_DATA_DIR!, { recursive: true, force: true });
}

/**
 * On a service started on a fresh data directory: signs in as the first admin it printed and
 * registers an A2A client that may call every primitive, as a desktop MCP client's owner would.
 */
export async function registerDesktopClient(service: RunningService): Promise<{ clientId: string; clientSecret: string }> {
  for (const deadline = Date.now() + 20_000; !/password:\s+\S+/.test(service.output()); ) {
    if (Date.now() > deadline) throw new Error(`no first-admin password printed:\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const cookie = await signInCookie(service.url, /email:\s+(\S+)/.exec(service.output())![1]!, /password:\s+(\S+)/.exec(service.output())![1]!);
  const registered = await trpcCall<{ client: { clientId: string }; clientSecret: string }>(service.url, cookie, 'a2a.clients.register', { name: 'Desktop', allowedAgents: [], permissions: [], allowedPrimitives: ['*'] });
  return { clientId: registered.client.clientId, clientSecret: registered.clientSecret };
}
