/**
 * Start-up of the built JavaScript against the same entry run from TypeScript through tsx, side
 * by side: the web server until it logs "service listening", the MCP server over stdio until it
 * logs "ready". Both on one external database (the bench database), so the embedded database's
 * own start is not in the numbers. `pnpm build` first (the bench script does not build).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsxLoaderUrl } from '@service/core/runtime';
import { testServices } from '@service/core/testing/services';
import { benchDatabase } from './bench-environment.ts';
import { report, sideBySide } from './harness.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 6);
const root = fileURLToPath(new URL('../../', import.meta.url));
const database = await benchDatabase('bench_start_up');
const uri = `mongodb://${database.db.connection.host}:${database.db.connection.port}/${database.db.connection.name}`;
const masterKey = randomBytes(32).toString('base64');
const services = testServices(database.db, { SERVICE_MASTER_KEY: masterKey });
const granted = await services.oauth.clients.register({ type: 'ui', id: 'bench', email: 'b@bench.test', role: 'admin' }, { name: 'bench', allowedAgents: [], permissions: [], allowedPrimitives: ['*'] });
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-start-up-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_ENV: 'test',
  HOST: '127.0.0.1',
  PORT: '0',
  MONGODB_URI: uri,
  SERVICE_DATA_DIR: dataDir,
  SERVICE_MASTER_KEY: masterKey,
  SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
  SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
  SERVICE_MCP_CLIENT_ID: granted.client.clientId,
  SERVICE_MCP_CLIENT_SECRET: granted.clientSecret,
};

/** Milliseconds from spawn until the process logs `ready`, then stops it. */
function timeToReady(args: string[], cwd: string, ready: RegExp): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => (ready.test(output) ? undefined : reject(new Error(`exited ${code} before ready:\n${output}`))));
  });
}

try {
  const web = await sideBySide(
    'web server start-up (to "service listening")',
    { iterations: ITERATIONS },
    { name: 'tsx web/server.ts', run: () => timeToReady(['--import', tsxLoaderUrl(), 'server.ts'], path.join(root, 'web'), /service listening on/) },
    { name: 'node web/build/server.js', run: () => timeToReady(['build/server.js'], path.join(root, 'web'), /service listening on/) },
  );
  report(web);
  const mcp = await sideBySide(
    'MCP server start-up over stdio (to "ready")',
    { iterations: ITERATIONS },
    { name: 'tsx mcp-server/src/main.ts', run: () => timeToReady(['--import', tsxLoaderUrl(), 'src/main.ts', '--stdio'], path.join(root, 'mcp-server'), /mcp-server ready on stdio/) },
    { name: 'node mcp-server/bin/service-mcp.js', run: () => timeToReady(['bin/service-mcp.js', '--stdio'], path.join(root, 'mcp-server'), /mcp-server ready on stdio/) },
  );
  report(mcp);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await database.stop();
}
