import type { AgentSource } from '../agents/index.ts';
import { packageFromArchive, readTarGz } from '../archive/index.ts';

const NPM_TARBALL_LIMITS = { maxArchiveBytes: 10 * 1024 * 1024, maxEntries: 200, maxUnpackedBytes: 20 * 1024 * 1024 };

/** Reads the extension's two files out of an npm tarball (already integrity-checked; npm puts them under `package/`). */
export async function readPackageTarball(bytes: Buffer): Promise<AgentSource> {
  const files = await readTarGz(bytes, NPM_TARBALL_LIMITS);
  return packageFromArchive(files).source;
}
