import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync, type Zippable } from 'fflate';
import * as tar from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { packageFromArchive, readTarGz, readZip, safeEntryPath } from './index.ts';

const manifest = { name: '@acme/faq', version: '1.0.0', license: 'MIT', service: { kind: 'agent', flow: 'flow.json' } };
const zip = (entries: Zippable) => Buffer.from(zipSync(entries));
const json = (value: unknown) => strToU8(JSON.stringify(value));
const SYMLINK = (0o120777 << 16) >>> 0;

describe('reading a zip', () => {
  it('reads a package at the root or inside one top folder, with its license text', async () => {
    const atRoot = packageFromArchive(await readZip(zip({ 'package.json': json(manifest), 'flow.json': json({ id: 'faq' }), LICENSE: strToU8('MIT License …') })));
    expect(atRoot).toMatchObject({ root: '', licenseText: 'MIT License …', source: { manifest, flow: { id: 'faq' } } });
    const nested = packageFromArchive(await readZip(zip({ 'faq-main/': {}, 'faq-main/package.json': json(manifest), 'faq-main/flow.json': json({ id: 'faq' }) })));
    expect(nested).toMatchObject({ root: 'faq-main', licenseText: null });
  });

  it('refuses path traversal, absolute paths and backslash traversal', async () => {
    await expect(readZip(zip({ 'package.json': json(manifest), '../evil.sh': strToU8('x') }))).rejects.toThrow(/path traversal/);
    await expect(readZip(zip({ 'pkg/../../evil': strToU8('x') }))).rejects.toThrow(/path traversal/);
    expect(() => safeEntryPath('..\\..\\evil')).toThrow(/path traversal/);
    expect(() => safeEntryPath('/etc/passwd')).toThrow(/absolute path/);
    expect(() => safeEntryPath('C:/Windows/x')).toThrow(/absolute path/);
  });

  it('refuses a symbolic link, even one that points out of the package', async () => {
    const archive = zip({ 'package.json': json(manifest), 'flow.json': [strToU8('../../../etc/passwd'), { os: 3, attrs: SYMLINK }] });
    await expect(readZip(archive)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/"flow.json" is a symbolic link/) });
    // Made by macOS (19) rather than Unix (3): the mode still says link.
    const fromMac = zip({ 'package.json': json(manifest), 'flow.json': [strToU8('/etc/passwd'), { os: 19, attrs: SYMLINK }] });
    await expect(readZip(fromMac)).rejects.toThrow(/is a symbolic link/);
  });

  it('refuses an archive over the size limit before reading it', async () => {
    const archive = zip({ 'package.json': json(manifest), 'big.bin': [Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251)), { level: 0 }] });
    await expect(readZip(archive, { maxArchiveBytes: 100_000, maxEntries: 10, maxUnpackedBytes: 10_000_000 })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses a zip bomb by what it inflates to, and too many entries', async () => {
    const bomb = zip({ 'package.json': json(manifest), 'zeros.txt': [new Uint8Array(40 * 1024 * 1024), { level: 9 }] });
    expect(bomb.length).toBeLessThan(100_000);
    await expect(readZip(bomb)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/unpacks to/) });
    const many = zip(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, strToU8('x')])));
    await expect(readZip(many, { maxArchiveBytes: 1_000_000, maxEntries: 10, maxUnpackedBytes: 1_000_000 })).rejects.toThrow(/more than 10 entries|20 entries/);
  });

  it('refuses what is not a zip', async () => {
    await expect(readZip(Buffer.from('hello'))).rejects.toThrow(/not a zip archive/);
  });
});

describe('reading a gzipped tarball', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  async function tarballOf(build: (dir: string) => Promise<void>): Promise<Buffer> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archive-test-'));
    dirs.push(dir);
    await build(dir);
    const chunks: Buffer[] = [];
    for await (const chunk of tar.c({ gzip: true, cwd: dir, portable: true }, ['acme-faq-abc1234'])) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  it('reads the package from the top folder', async () => {
    const bytes = await tarballOf(async (dir) => {
      await mkdir(path.join(dir, 'acme-faq-abc1234', 'agents', 'faq'), { recursive: true });
      await writeFile(path.join(dir, 'acme-faq-abc1234', 'agents', 'faq', 'package.json'), JSON.stringify(manifest));
      await writeFile(path.join(dir, 'acme-faq-abc1234', 'agents', 'faq', 'flow.json'), '{"id":"faq"}');
    });
    const files = await readTarGz(bytes);
    expect(packageFromArchive(files, 'acme-faq-abc1234/agents/faq').source.flow).toEqual({ id: 'faq' });
  });

  it('refuses a symbolic link', async () => {
    const bytes = await tarballOf(async (dir) => {
      await mkdir(path.join(dir, 'acme-faq-abc1234'));
      await writeFile(path.join(dir, 'acme-faq-abc1234', 'package.json'), JSON.stringify(manifest));
      await symlink('/etc/passwd', path.join(dir, 'acme-faq-abc1234', 'flow.json'));
    });
    await expect(readTarGz(bytes)).rejects.toThrow(/is a link/);
  });
});
