import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { DomainError } from '../errors/index.ts';
import type { AgentSource } from '../agents/index.ts';

const MAX_ENTRIES = 200;
const MAX_UNPACKED_BYTES = 20 * 1024 * 1024;

/** Extracts an npm tarball (already integrity-checked) and reads the extension's two files. */
export async function readPackageTarball(bytes: Buffer): Promise<AgentSource> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'service-unpack-'));
  try {
    const file = path.join(dir, 'package.tgz');
    await writeFile(file, bytes);
    let entries = 0;
    let unpacked = 0;
    const out = path.join(dir, 'out');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(out);
    await tar.x({
      file,
      cwd: out,
      strip: 1,
      // Regular files and directories only: no links, devices or absolute paths out of `out`.
      filter: (_entryPath, entry) => {
        entries++;
        unpacked += 'size' in entry ? (entry.size ?? 0) : 0;
        if (entries > MAX_ENTRIES || unpacked > MAX_UNPACKED_BYTES) throw new DomainError('PAYLOAD_TOO_LARGE', 'package tarball unpacks too large');
        return 'type' in entry ? entry.type === 'File' || entry.type === 'Directory' : true;
      },
    });
    const manifest = JSON.parse(await readFile(path.join(out, 'package.json'), 'utf8')) as { service?: { flow?: unknown } };
    const flowFile = typeof manifest.service?.flow === 'string' && /^[\w.-]+\.json$/.test(manifest.service.flow) ? manifest.service.flow : 'flow.json';
    const flow = JSON.parse(await readFile(path.join(out, flowFile), 'utf8')) as unknown;
    return { manifest, flow };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError('VALIDATION_FAILED', `not an extension package: ${(error as Error).message}`, { cause: error });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
