import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '@service/embedded';
import { createSealer } from '../crypto/index.ts';
import { createLogger } from '../log/index.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'embedded-registry-'));
const sealer = createSealer({ current: randomBytes(32) });
const logger = createLogger({ level: 'error' });
const running: EmbeddedRegistry[] = [];
afterAll(async () => {
  await Promise.all(running.map((registry) => registry.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function whoami(registry: EmbeddedRegistry): Promise<unknown> {
  const response = await fetch(`${registry.url}-/whoami`, { headers: { authorization: `Bearer ${registry.token}` } });
  return response.ok ? ((await response.json()) as { username: string }).username : response.status;
}

describe('the embedded registry', () => {
  it('starts again on the same data directory with the same user, and its new token works', async () => {
    const first = await startEmbeddedRegistry({ dataDir, sealer, logger });
    running.push(first);
    expect(await whoami(first)).toBe('service');
    await first.stop();

    const second = await startEmbeddedRegistry({ dataDir, sealer, logger });
    running.push(second);
    expect(await whoami(second)).toBe('service');
  }, 120_000);
});
