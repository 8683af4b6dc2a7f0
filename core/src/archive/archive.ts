import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { DomainError } from '../errors/index.ts';

/** What an archive may hold before it is refused. Documented in docs/imports.md. */
export interface ArchiveLimits {
  /** The archive as uploaded or downloaded. */
  maxArchiveBytes: number;
  maxEntries: number;
  /** Sum of every file's bytes once decompressed, counted as they are inflated. */
  maxUnpackedBytes: number;
}

export const IMPORT_LIMITS: ArchiveLimits = {
  maxArchiveBytes: 5 * 1024 * 1024,
  maxEntries: 500,
  maxUnpackedBytes: 20 * 1024 * 1024,
};

/** Regular files of an archive by their normalised relative path; nothing is written to disk. */
export type ArchiveFiles = Map<string, Buffer>;

const refuse = (reason: string) => new DomainError('VALIDATION_FAILED', `${reason}; nothing was imported`);
const tooLarge = (reason: string) => new DomainError('PAYLOAD_TOO_LARGE', `${reason}; nothing was imported`);

/**
 * An entry name as a safe relative path, or a refusal: no absolute paths, drive letters, `..`
 * segments or NUL bytes, whatever separator the archiver used.
 */
export function safeEntryPath(name: string): string {
  const slashed = name.replace(/\\/g, '/');
  if (slashed.includes('\0') || slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) throw refuse(`archive entry "${name}" is an absolute path`);
  if (slashed.split('/').includes('..')) throw refuse(`archive entry "${name}" leaves the package folder (path traversal)`);
  return path.posix.normalize(slashed).replace(/^(\.\/)+/, '').replace(/\/$/, '');
}

function budget(limits: ArchiveLimits) {
  let entries = 0;
  let unpacked = 0;
  return {
    entry(name: string) {
      entries++;
      if (entries > limits.maxEntries) throw tooLarge(`the archive has more than ${limits.maxEntries} entries (at "${name}")`);
    },
    bytes(count: number) {
      unpacked += count;
      if (unpacked > limits.maxUnpackedBytes) throw tooLarge(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
    },
  };
}

function checkArchiveSize(bytes: Buffer, limits: ArchiveLimits): void {
  if (bytes.length > limits.maxArchiveBytes) throw tooLarge(`the archive is ${bytes.length} bytes, over the ${limits.maxArchiveBytes}-byte limit`);
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** Reads a zip in memory. Links, devices and anything but files and folders are refused. */
export async function readZip(bytes: Buffer, limits: ArchiveLimits = IMPORT_LIMITS): Promise<ArchiveFiles> {
  checkArchiveSize(bytes, limits);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (error, file) =>
      error ? reject(refuse(`not a zip archive (${error.message})`)) : resolve(file),
    ),
  );
  const files: ArchiveFiles = new Map();
  const spent = budget(limits);
  try {
    if (zip.entryCount > limits.maxEntries) throw tooLarge(`the archive has ${zip.entryCount} entries, over the limit of ${limits.maxEntries}`);
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        zip.close();
        reject(error instanceof DomainError ? error : refuse(zipProblem(error)));
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          spent.entry(entry.fileName);
          const relative = safeEntryPath(entry.fileName);
          // Unix modes sit in the high half of the external attributes; archivers on Unix, macOS
          // and others set them, so they are read whatever system the entry claims to be made by.
          const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
          if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) {
            throw refuse(`archive entry "${entry.fileName}" is a ${mode === 0o120000 ? 'symbolic link' : 'special file'}; only files and folders may be imported`);
          }
          if (entry.fileName.endsWith('/') || mode === S_IFDIR) {
            zip.readEntry();
            return;
          }
          // The declared size may lie; it is checked up front and then against what is inflated.
          if (entry.uncompressedSize > limits.maxUnpackedBytes) throw tooLarge(`archive entry "${entry.fileName}" unpacks to ${entry.uncompressedSize} bytes`);
          zip.openReadStream(entry, (error, stream) => {
            if (error) return fail(error);
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => {
              try {
                spent.bytes(chunk.length);
                chunks.push(chunk);
              } catch (limit) {
                stream.destroy();
                fail(limit);
              }
            });
            stream.on('error', fail);
            stream.on('end', () => {
              files.set(relative, Buffer.concat(chunks));
              zip.readEntry();
            });
          });
        } catch (error) {
          fail(error);
        }
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return files;
}

function zipProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/invalid relative path|absolute path/.test(message)) return `archive entry ${message.replace(/^.*?: /, '"')}" leaves the package folder (path traversal)`;
  return `the zip archive is damaged (${message})`;
}

/** Reads a gzipped tarball (npm's and GitHub's archive format) in memory, same rules as zip. */
export async function readTarGz(bytes: Buffer, limits: ArchiveLimits = IMPORT_LIMITS): Promise<ArchiveFiles> {
  checkArchiveSize(bytes, limits);
  const files: ArchiveFiles = new Map();
  const spent = budget(limits);
  let problem: unknown = null;
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      try {
        if (problem) return entry.resume();
        spent.entry(entry.path);
        const relative = safeEntryPath(entry.path);
        if (entry.type === 'Directory') return entry.resume();
        if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'ContiguousFile') {
          throw refuse(`archive entry "${entry.path}" is a ${/Link/.test(entry.type) ? 'link' : 'special file'}; only files and folders may be imported`);
        }
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => {
          if (problem) return;
          try {
            spent.bytes(chunk.length);
            chunks.push(chunk);
          } catch (limit) {
            problem = limit;
          }
        });
        entry.on('end', () => {
          if (!problem) files.set(relative, Buffer.concat(chunks));
        });
      } catch (error) {
        problem = error;
        entry.resume();
      }
    },
  });
  try {
    // The gunzip output is counted too, so a small tarball of one huge file stops early.
    let inflated = 0;
    const gunzip = createGunzip();
    gunzip.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > limits.maxUnpackedBytes + 1024 * 1024) gunzip.destroy(tooLarge(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`));
    });
    await pipeline(Readable.from([bytes]), gunzip, parser);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (!problem) throw refuse(`not a gzipped tar archive (${(error as Error).message})`);
  }
  if (problem) throw problem;
  return files;
}
