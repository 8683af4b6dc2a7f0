import { gzipSync, strToU8, zipSync } from 'fflate';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/index.ts';
import { fuzzParameters, within } from '../testing/index.ts';
import { packageFromArchive, readTarGz, readZip } from './index.ts';

const limits = { maxArchiveBytes: 256 * 1024, maxEntries: 20, maxUnpackedBytes: 1024 * 1024 };

/** Reading an archive and finding its package either works or fails with a typed error: never a crash or a hang. */
async function readsOrRefuses(read: () => Promise<unknown>) {
  try {
    const files = (await within(5_000, read())) as Parameters<typeof packageFromArchive>[0];
    packageFromArchive(files);
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(DomainError);
  }
}

// Entry names from the parts that matter to a reader: traversal, absolute paths, backslashes, NUL, folders.
const segment = fc.oneof(fc.constantFrom('..', '.', '', 'pkg', 'package.json', 'flow.json', 'LICENSE', 'C:', '\\..', 'a\u0000b', '%2e%2e'), fc.string({ maxLength: 12 }));
const entryName = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.constantFrom('/', '\\')).map(([parts, separator]) => parts.join(separator));
const content = fc.oneof(fc.uint8Array({ maxLength: 2048 }), fc.jsonValue({ maxDepth: 3 }).map((v) => strToU8(JSON.stringify(v))), fc.constant(strToU8(JSON.stringify({ name: '@acme/x', version: '1.0.0', service: { kind: 'agent', flow: 'flow.json' } }))));
const entries = fc.dictionary(entryName, content, { maxKeys: 8 });

describe('fuzzing the archive readers (zip and tar.gz)', () => {
  it('arbitrary bytes as a zip or a gzipped tarball: a typed refusal, never a crash or a hang', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), async (bytes, gzip) => {
        await readsOrRefuses(() => readZip(Buffer.from(bytes), limits));
        await readsOrRefuses(() => readTarGz(Buffer.from(gzip ? gzipSync(bytes) : bytes), limits));
      }),
      fuzzParameters(1000),
    );
  });

  it('well-formed zips with hostile entry names and contents: read within the rules or refused, never written outside', async () => {
    await fc.assert(
      fc.asyncProperty(entries, async (files) => {
        let archive: Buffer;
        try {
          archive = Buffer.from(zipSync(files));
        } catch {
          return; // the zip writer itself refused the names
        }
        await readsOrRefuses(async () => {
          const read = await readZip(archive, limits);
          for (const name of read.keys()) {
            expect(name.startsWith('/') || name.split('/').includes('..') || name.includes('\\') || name.includes('\u0000'), name).toBe(false);
          }
          return read;
        });
      }),
      fuzzParameters(1000),
    );
  });
});
