import mongoose from 'mongoose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';

/**
 * A full disk, simulated where the driver hands a write to the server: every write that stores
 * something fails with the server's out-of-space error, as mongod reports it (the wording of
 * other servers: errors/storage-full.test.ts).
 */
const t = useTestDatabase();
let services: Services;
let token: string;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;

beforeAll(async () => {
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  await installExampleAgents(t.db, '@acme');
  const { client } = await services.oauth.clients.register(admin, { name: 'peer', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = (await services.oauth.tokens.issue(client)).access_token;
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
});

afterEach(() => {
  vi.restoreAllMocks();
});

function fillTheDisk(): void {
  const full = new mongoose.mongo.MongoServerError({ ok: 0, code: 14031, codeName: 'OutOfDiskSpace', errmsg: 'Both the journal and data directories are out of space' });
  for (const method of ['insertOne', 'insertMany', 'updateOne', 'updateMany', 'bulkWrite', 'findOneAndUpdate'] as const) {
    vi.spyOn(mongoose.mongo.Collection.prototype, method).mockRejectedValue(full);
  }
}

async function send(text: string): Promise<{ result?: { kind: string }; error?: { code: number; message: string } }> {
  const response = await services.handlers.a2a(
    new Request('http://127.0.0.1:3999/api/a2a', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }], metadata: { skillId: '@acme/summarizer' } } } }),
    }),
  );
  return response.json() as Promise<{ result?: { kind: string }; error?: { code: number; message: string } }>;
}

const health = async () => {
  const response = await services.handlers.healthz(new Request('http://127.0.0.1:3999/healthz'));
  return { status: response.status, body: (await response.json()) as { status: string; checks: { database: { status: string; storage?: { status: string; reason: string } } } } };
};

describe('a full disk', () => {
  it('answers a send with a clear storage error, not an internal one, and /healthz says degraded and why until a write succeeds again', async () => {
    expect((await health()).status).toBe(200);
    fillTheDisk();
    expect((await send('Nothing can be stored. Really.')).error).toMatchObject({ code: -32058, message: expect.stringMatching(/no space left/i) });

    const degraded = await health();
    expect(degraded.status).toBe(503);
    expect(degraded.body).toMatchObject({ status: 'degraded', checks: { database: { status: 'up', storage: { status: 'full', reason: 'out of disk space (OutOfDiskSpace)', since: expect.any(String) } } } });

    vi.restoreAllMocks();
    expect((await send('Space is back. Good.')).result).toMatchObject({ kind: 'task' });
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});
