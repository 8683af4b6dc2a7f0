import { createUserStore } from '@service/core/auth';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import type { RunningService } from '../helpers/service-process.ts';

/**
 * Issue 25, item 6 (the web server's part), on the wire: the real server (production build),
 * its own log, and clients that send what browsers never do.
 */
const t = useTestDatabase();
let service: RunningService;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  await createUserStore(t.db.models).create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' });
  ({ service } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme' }));
});

afterAll(async () => {
  await service?.stop();
});

/** What the service logged at warn or error since `from` (an offset into its output). */
function problemsLoggedSince(from: number): string[] {
  return service
    .output()
    .slice(from)
    .split('\n')
    .filter((line) => /"level":"(warn|error)"/.test(line) || /^\s+at /.test(line));
}

describe('an address that cannot be decoded', () => {
  it('answers a plain 400 without a stack trace or paths, whichever route it would have reached', async () => {
    const from = service.output().length;
    for (const path of ['/%ff', '/assets/%ff', '/administration/%ff', '/a2a/%ff/x', '/sign-in/%E0%A4%A']) {
      const response = await rawRequest(`${service.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(response.headers['content-type'], path).toMatch(/^text\/plain/);
      expect(response.body, path).toBe('Bad Request\n');
      expect(response.headers['x-content-type-options'], path).toBe('nosniff');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(problemsLoggedSince(from)).toEqual([]);
  });
});
