import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundHttp } from '../http/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { createNpmRunner } from './npm-cli.ts';
import { publishTarball } from './publish-to-registry.ts';

/** A registry that takes any publish: enough for `npm publish`, and it records what reached it. */
let registry: http.Server;
let port = 0;
const received: string[] = [];
const hosts: string[] = [];
let dir = '';
let tarball = '';

beforeAll(async () => {
  registry = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    hosts.push(req.headers.host ?? '');
    req.resume().on('end', () => res.writeHead(req.method === 'PUT' ? 201 : 404, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  port = (registry.address() as AddressInfo).port;
  dir = await mkdtemp(path.join(os.tmpdir(), 'publish-test-'));
  await mkdir(path.join(dir, 'package'));
  await writeFile(path.join(dir, 'package', 'package.json'), JSON.stringify({ name: '@acme/notes', version: '1.0.0' }));
  tarball = path.join(dir, 'notes-1.0.0.tgz');
  await tar.c({ gzip: true, file: tarball, cwd: dir, portable: true }, ['package']);
});

afterAll(async () => {
  await new Promise((resolve) => registry.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const destination = (registryUrl: string) => ({ name: 'private' as const, destinationId: 'acme-private', registryUrl, routingMode: 'scope-based' as const, token: 'publish-token' });

describe('publishing a tarball with the npm CLI', () => {
  it('connects npm to the address it checked: a name that passed the check but resolves to loopback when npm connects is refused', async () => {
    const policy = createOutboundHttp({ allowPrivate: false });
    // The name passed the check (as a rebinding name does, answering a public address first); by the time npm connects it is loopback.
    const rebinding = { ...policy, assertAllowed: async () => undefined };
    try {
      const before = received.length;
      await expect(publishTarball({ npm: createNpmRunner(createMemoryLogger()), http: rebinding }, destination(`http://localhost:${port}/`), tarball, '@acme')).rejects.toMatchObject({
        code: 'OUTBOUND_REFUSED',
        message: expect.stringContaining('SERVICE_OUTBOUND_ALLOW_PRIVATE'),
      });
      expect(received.slice(before)).toEqual([]);
    } finally {
      await policy.close();
    }
  }, 60_000);

  it('publishes where the policy allows it, through the same checked connection', async () => {
    const policy = createOutboundHttp({ allowPrivate: true });
    try {
      const before = received.length;
      await publishTarball({ npm: createNpmRunner(createMemoryLogger()), http: policy }, destination(`http://localhost:${port}/`), tarball, '@acme');
      expect(received.slice(before)).toContain('PUT /@acme%2fnotes');
      // Connected to the checked address, still addressed to the registry's name.
      expect(new Set(hosts.slice(before))).toEqual(new Set([`localhost:${port}`]));
    } finally {
      await policy.close();
    }
  }, 60_000);
});
