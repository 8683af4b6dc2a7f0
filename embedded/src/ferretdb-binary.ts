import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { EmbeddedLogger } from './host.ts';

const run = promisify(execFile);

export const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
export const FERRETDB_VERSION = 'v1.24.2';

/**
 * Applied to the module copy before building: the SQLite backend's `_id` column expression made
 * to match its `_id` index, and `_id` ranges, `$in` and sorts served from that index (ADR 0009).
 */
// At the package's root, one level above both src/ (these sources) and dist/ (the built bundle).
const PATCH_FILE = fileURLToPath(new URL('../ferretdb-id-pushdown.patch', import.meta.url));
const patchText = () => readFileSync(PATCH_FILE, 'utf8');

/** The binary's name carries the patch's digest, so a build without this patch is never reused. */
export function ferretdbBinaryName(): string {
  const digest = createHash('sha256').update(patchText()).digest('hex').slice(0, 10);
  return `ferretdb-${FERRETDB_VERSION}-${digest}`;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

async function goBinDir(): Promise<string | undefined> {
  const go = onPath('go');
  if (!go) return undefined;
  const { stdout } = await run(go, ['env', 'GOBIN', 'GOPATH']);
  const [gobin, gopath] = stdout.split('\n').map((s) => s.trim());
  if (gobin) return gobin;
  return gopath ? path.join(gopath.split(path.delimiter)[0]!, 'bin') : undefined;
}

/** The patched build on PATH or in the Go bin dir, if one is there (a plain `ferretdb` is not used). */
export async function findFerretdb(): Promise<string | undefined> {
  const name = ferretdbBinaryName();
  const found = onPath(name);
  if (found) return found;
  const bin = await goBinDir();
  if (bin && isExecutable(path.join(bin, name))) return path.join(bin, name);
  return undefined;
}

export function goAvailable(): boolean {
  return onPath('go') !== undefined;
}

/**
 * Installs FerretDB into the Go bin dir from the Go module proxy.
 *
 * Plain `go install …@v1.24.2` is not used: it first asks the proxy for the module's version
 * list (refused by some proxies), and the module archive lacks the generated
 * build/version/version.txt, so the binary it builds panics at start. Instead this downloads
 * exactly v1.24.2, adds that one file, applies the repository's patch (checked before and after),
 * and builds cmd/ferretdb from a throwaway module that points at the copy. See
 * docs/decisions/0002-database-and-test-database.md and 0009-ferretdb-id-index.md.
 */
export async function installFerretdb(logger: EmbeddedLogger): Promise<string> {
  const go = onPath('go');
  if (!go) throw new Error('cannot install FerretDB: no `go` on PATH');
  const bin = await goBinDir();
  if (!bin) throw new Error('cannot install FerretDB: `go env GOPATH` is empty');
  const started = Date.now();
  logger.info(`installing FerretDB ${FERRETDB_VERSION} from the Go module proxy into ${bin} (first time only; 1 to 8 minutes on a cold Go cache, depending on the machine)`);
  const ticker = setInterval(() => {
    logger.info(`still building FerretDB… ${Math.round((Date.now() - started) / 1000)} s`);
  }, 15_000);
  const work = mkdtempSync(path.join(os.tmpdir(), 'ferretdb-build-'));
  try {
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
    await run(go, ['mod', 'init', 'ferretdb-build'], { cwd: work, env });
    const { stdout } = await run(go, ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], { cwd: work, env, maxBuffer: 1 << 24 });
    const moduleDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
    if (!moduleDir) throw new Error(`go mod download did not return a directory for ${FERRETDB_MODULE}@${FERRETDB_VERSION}`);
    const source = path.join(work, 'ferretdb-src');
    cpSync(moduleDir, source, { recursive: true });
    chmodRecursive(source);
    writeFileSync(path.join(source, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    await applyPatch(source);
    await run(go, ['mod', 'edit', `-require=${FERRETDB_MODULE}@${FERRETDB_VERSION}`, `-replace=${FERRETDB_MODULE}=./ferretdb-src`], { cwd: work, env });
    mkdirSync(bin, { recursive: true });
    const target = path.join(bin, ferretdbBinaryName());
    await run(go, ['build', '-o', target, `${FERRETDB_MODULE}/cmd/ferretdb`], { cwd: work, env, maxBuffer: 1 << 24 });
    await run(target, ['--version']);
    logger.info(`installed FerretDB ${FERRETDB_VERSION} at ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
    return target;
  } finally {
    clearInterval(ticker);
    rmSync(work, { recursive: true, force: true });
  }
}

/** Applies the patch with `git apply` and verifies that the `_id` column now matches its index. */
async function applyPatch(source: string): Promise<void> {
  const git = onPath('git');
  if (!git) throw new Error('cannot build FerretDB: `git` is needed to apply embedded/ferretdb-id-pushdown.patch');
  await run(git, ['apply', '--check', PATCH_FILE], { cwd: source });
  await run(git, ['apply', PATCH_FILE], { cwd: source });
  const metadata = readFileSync(path.join(source, 'internal', 'backends', 'sqlite', 'metadata', 'metadata.go'), 'utf8');
  if (!metadata.includes(`IDColumn = DefaultColumn + "->'_id'"`)) {
    throw new Error('FerretDB patch did not apply: IDColumn still differs from the _id index expression');
  }
}

/** The module cache is read-only; the copy must be writable to add version.txt and to be removed. */
function chmodRecursive(dir: string): void {
  execFileSync('chmod', ['-R', 'u+w', dir]);
}

/** The binary to use: found, or installed once when Go is present. */
export async function ensureFerretdb(logger: EmbeddedLogger): Promise<string | undefined> {
  const found = await findFerretdb();
  if (found) return found;
  if (!goAvailable()) return undefined;
  return installFerretdb(logger);
}
