import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, runEventsAfter, type Database } from '@service/core/db';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken, installExampleAgents } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * Faults on the embedded default, one after another, with runs in flight (issue 25): the
 * database killed, the registry killed, the web process killed. After each: no orphan, no second
 * database on the same files, the service back without a hand restart, no run lost or doubled.
 * Linux only (it reads /proc to count processes).
 */
const hasProc = existsSync('/proc/self/cmdline');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'service-chaos-'));
// One instance across restarts: the same data directory and secrets every start.
const env = {
  SERVICE_DATA_DIR: dataDir,
  SERVICE_VENDOR_SCOPE: '@acme',
  SERVICE_A2A_HTTP_ENABLED: 'true',
  SERVICE_LLM_SCRIPTED_DELAY_MS: '800',
  SERVICE_MASTER_KEY: randomBytes(32).toString('base64'),
  SERVICE_SESSION_SECRET: randomBytes(32).toString('base64url'),
  SERVICE_BRIDGE_TOKEN: randomBytes(32).toString('base64url'),
};
let service: RunningService;
let db: Database;
let token: string;
let credentials: [string, string];

const lock = () => JSON.parse(readFileSync(path.join(dataDir, 'service.lock'), 'utf8')) as { pid: number; databaseUri: string; databasePid?: number };
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));
/** Live processes whose command line names `directory` (found by /proc, not by what the service says); `watchers` keeps the `sh` that holds each child. */
const processesOn = (directory: string, watchers = false) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && alive(Number(entry)))
    .filter((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return command.includes(directory) && (watchers || !command.startsWith('/bin/sh'));
      } catch {
        return false;
      }
    })
    .map(Number);
/** The live processes listening on a loopback TCP port (by the socket's inode in /proc/net/tcp and each process's fds). */
const listenersOn = (port: number) => {
  const inodes = new Set(
    ['/proc/net/tcp', '/proc/net/tcp6']
      .filter((table) => existsSync(table))
      .flatMap((table) => readFileSync(table, 'utf8').split('\n').slice(1))
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length > 9 && fields[3] === '0A' && Number.parseInt(fields[1]!.split(':')[1]!, 16) === port)
      .map((fields) => `socket:[${fields[9]}]`),
  );
  if (inodes.size === 0) return [];
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && alive(Number(entry)))
    .filter((pid) => {
      try {
        return readdirSync(`/proc/${pid}/fd`).some((fd) => {
          try {
            return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    })
    .map(Number);
};
const databasesOnThisDirectory = () => processesOn(path.join(dataDir, 'db'));
/** Verdaccio renames its process (`process.title`), so it is found by the port its state file names. */
const registryPort = () => (JSON.parse(readFileSync(path.join(dataDir, 'registry', 'state.json'), 'utf8')) as { port: number }).port;
const registriesOnThisDirectory = () => listenersOn(registryPort());
/** The one process of a kind, failing when there is none or more than one. */
const theOne = (pids: number[], what: string) => {
  expect(pids, what).toHaveLength(1);
  return pids[0]!;
};

async function rpc(method: string, params: unknown, signal?: AbortSignal): Promise<{ status: number; retryAfter: string | null; body: { result?: { task?: { id: string; status: { state: string } }; id?: string; status?: { state: string } }; error?: unknown } }> {
  const response = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), ...(signal ? { signal } : {}) });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as never };
}

const errorsLogged = () => service.output().split('\n').filter((line) => line.includes('"level":"error"')).join('\n');

async function startRuns(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { body } = await rpc('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `Chaos ${i}. Keep going.` }] }, configuration: { returnImmediately: true } });
    ids.push(body.result!.task!.id);
  }
  return ids;
}

/** Each run ended completed, once: dense events, one completion, one answer. */
async function expectEachCompletedOnce(ids: string[]) {
  for (const id of ids) {
    await expect
      .poll(async () => (await rpc('GetTask', { id })).body.result?.status?.state, { timeout: 60_000, interval: 250 })
      .toBe('TASK_STATE_COMPLETED')
      .catch((error: Error) => {
        throw new Error(`${error.message}\nerrors the service logged:\n${errorsLogged()}`, { cause: error });
      });
    const events = (await db.models.RunEvent.find({ _id: runEventsAfter(id, 0) }).sort({ _id: 1 }).lean()).map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as { type: string; status?: { state: string } } }));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.event.status?.state === 'completed')).toHaveLength(1);
    expect(events.filter((e) => e.event.type === 'artifact')).toHaveLength(1);
  }
}

beforeAll(async () => {
  if (!hasProc) return;
  service = await startService({ env });
  db = await connectDatabase(lock().databaseUri);
  await installExampleAgents(db, '@acme', ['summarizer']);
  const admin = { type: 'ui', id: 'chaos', email: 'chaos@acme.test', role: 'admin' } as const;
  const { client, clientSecret } = await testServices(db).oauth.clients.register(admin, { name: 'chaos', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  credentials = [client.clientId, clientSecret];
  token = await fetchAccessToken(`${service.url}/api/oauth/token`, ...credentials);
}, 180_000);

afterAll(async () => {
  await db?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(!hasProc)(`faults with runs in flight (chaos)${hasProc ? '' : ' (skipped: no /proc here, which these tests read to count processes)'}`, () => {
  it('the database killed: requests meanwhile are answered 503 with Retry-After or served, never 500 or 401; it is back by itself, alone, and no run is lost or doubled', async () => {
    const runs = await startRuns(6);
    const killed = theOne(databasesOnThisDirectory(), 'databases');
    process.kill(killed, 'SIGKILL');
    const seen = new Set<string>();
    for (const deadline = Date.now() + 3_000; Date.now() < deadline; ) {
      // An answer is due at once: the service knows its database is down without asking it.
      const answer = await rpc('GetTask', { id: runs[0] }, AbortSignal.timeout(2_000)).catch(() => undefined);
      if (!answer) seen.add('no answer within 2 s');
      else if (answer.status === 200) seen.add(answer.body.error ? `200 with error ${JSON.stringify(answer.body.error)}` : '200');
      else seen.add(`${answer.status} retry-after ${answer.retryAfter} ${JSON.stringify(answer.body.error)}`);
    }
    const errorInfo = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'DEPENDENCY_UNAVAILABLE', domain: new URL(service.url).host };
    const unavailable = `503 retry-after 5 ${JSON.stringify({ code: -32059, message: 'The database is unavailable; try again shortly', data: [errorInfo] })}`;
    expect([...seen].every((answer) => answer === '200' || answer === unavailable), `${[...seen].join('; ')}\n${errorsLogged()}`).toBe(true);
    await expect.poll(() => databasesOnThisDirectory().filter((pid) => pid !== killed).length, { timeout: 30_000 }).toBe(1);
    expect(alive(killed)).toBe(false);
    // The lock names it, so a later start can stop it if this process dies without doing so.
    expect(lock().databasePid).toBe(theOne(databasesOnThisDirectory(), 'databases'));
    await expectEachCompletedOnce(runs);
    expect(service.output()).toContain('the embedded database stopped; starting it again');
  }, 120_000);

  it('the registry killed: it is back by itself and answers', async () => {
    const killed = theOne(registriesOnThisDirectory(), 'registries');
    process.kill(killed, 'SIGKILL');
    await expect.poll(() => registriesOnThisDirectory().filter((pid) => pid !== killed).length, { timeout: 30_000 }).toBe(1);
    expect((await fetch(`http://127.0.0.1:${registryPort()}/-/ping`)).ok).toBe(true);
    expect(alive(killed)).toBe(false);
    expect(service.output()).toContain('the embedded registry stopped; starting it again');
  }, 60_000);

  it('the web process killed: its database and registry end with it, a new start runs one database and finishes every run once', async () => {
    const runs = await startRuns(4);
    theOne(databasesOnThisDirectory(), 'databases');
    theOne(registriesOnThisDirectory(), 'registries');
    const ports = [Number(new URL(lock().databaseUri).port), registryPort()];
    await service.killProcessOnly();
    // Nothing of this instance outlives it: no database, no registry, no watcher.
    await expect.poll(() => [...processesOn(dataDir, true), ...ports.flatMap(listenersOn)], { timeout: 10_000 }).toEqual([]);
    await db.close();
    service = await startService({ env });
    db = await connectDatabase(lock().databaseUri);
    expect(databasesOnThisDirectory()).toHaveLength(1);
    token = await fetchAccessToken(`${service.url}/api/oauth/token`, ...credentials);
    await expectEachCompletedOnce(runs);
  }, 180_000);
});
