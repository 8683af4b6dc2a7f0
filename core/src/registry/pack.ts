import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ssri from 'ssri';
import * as tar from 'tar';
import type { AgentSource } from '../agents/index.ts';

export interface PackedTarball {
  /** Absolute path of the .tgz; removed by `dispose`. */
  file: string;
  integrity: string;
  size: number;
  dispose(): Promise<void>;
}

/**
 * Packs an extension the way `npm pack` lays it out (`package/` prefix, gzip, portable headers,
 * fixed mtime so the same source packs to the same bytes), in process.
 */
export async function packSource(source: AgentSource, flowFile: string): Promise<PackedTarball> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'service-pack-'));
  const root = path.join(dir, 'package');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(root);
  const manifest = source.manifest as { name: string; version: string; description?: string };
  await writeFile(path.join(root, 'package.json'), JSON.stringify(source.manifest, null, 2) + '\n');
  await writeFile(path.join(root, flowFile), JSON.stringify(source.flow, null, 2) + '\n');
  await writeFile(path.join(root, 'README.md'), `# ${manifest.name}\n\n${manifest.description ?? ''}\n`);
  const file = path.join(dir, `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`);
  await tar.c({ gzip: true, file, cwd: dir, portable: true, mtime: new Date('1985-10-26T08:15:00Z') }, ['package']);
  const bytes = await readFile(file);
  return {
    file,
    integrity: ssri.fromData(bytes, { algorithms: ['sha512'] }).toString(),
    size: bytes.length,
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
