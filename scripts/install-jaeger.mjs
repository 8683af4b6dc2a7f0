// Builds the Jaeger v2 binary the telemetry tests start (a real OTLP/HTTP trace receiver), once,
// into the Go bin dir beside FerretDB's build. Plain Node with built-ins only: it runs from
// scripts/install-test-deps.sh before `pnpm install`, from `pnpm jaeger:install`, and from the
// test helper (test/helpers/jaeger-binary.ts) on first use.
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const JAEGER_MODULE = 'github.com/jaegertracing/jaeger';
export const JAEGER_VERSION = 'v1.76.0';
/** The Jaeger v2 program: an OpenTelemetry Collector with Jaeger's storage and query extensions. */
const JAEGER_PACKAGE = `${JAEGER_MODULE}/cmd/jaeger`;
/**
 * Jaeger's own go.mod pins sarama with a replace; a module that only requires Jaeger ignores
 * that replace, so the build module repeats it to build what Jaeger's release builds.
 */
const JAEGER_REPLACES = ['github.com/Shopify/sarama=github.com/Shopify/sarama@v1.33.0'];

/** Versioned, so a build of another version is never taken for this one. */
export const jaegerBinaryName = () => `jaeger-${JAEGER_VERSION}`;

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/** `go` on PATH, else the official tarball's place (a test runner's PATH often lacks it). */
export function goCommand() {
  return onPath('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

async function goBinDir(go) {
  const { stdout } = await run(go, ['env', 'GOBIN', 'GOPATH']);
  const [gobin, gopath] = stdout.split('\n').map((s) => s.trim());
  if (gobin) return gobin;
  return gopath ? path.join(gopath.split(path.delimiter)[0], 'bin') : undefined;
}

/** The built binary on PATH or in the Go bin dir, if it is there. */
export async function findJaeger() {
  const name = jaegerBinaryName();
  const found = onPath(name);
  if (found) return found;
  const go = goCommand();
  const bin = go ? await goBinDir(go) : undefined;
  return bin && isExecutable(path.join(bin, name)) ? path.join(bin, name) : undefined;
}

/**
 * Builds cmd/jaeger from the Go module proxy into the Go bin dir. Not `go install …@version`:
 * that refuses a module whose go.mod has replace directives, and Jaeger's has one. A throwaway
 * module requires exactly this version instead. The binary is written under a temporary name
 * and renamed, so two test files building at once never run a half-written file.
 */
export async function installJaeger(log) {
  const go = goCommand();
  if (!go) throw new Error('cannot build Jaeger: no `go` on PATH (Go 1.24 or later)');
  const bin = await goBinDir(go);
  if (!bin) throw new Error('cannot build Jaeger: `go env GOPATH` is empty');
  const started = Date.now();
  log(`building Jaeger ${JAEGER_VERSION} from the Go module proxy into ${bin} (first time only; about 5 minutes on 2 cores)`);
  const ticker = setInterval(() => log(`still building Jaeger… ${Math.round((Date.now() - started) / 1000)} s`), 30_000);
  const work = mkdtempSync(path.join(os.tmpdir(), 'jaeger-build-'));
  try {
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
    await run(go, ['mod', 'init', 'jaeger-build'], { cwd: work, env });
    await run(go, ['mod', 'edit', `-require=${JAEGER_MODULE}@${JAEGER_VERSION}`, ...JAEGER_REPLACES.map((r) => `-replace=${r}`)], { cwd: work, env });
    mkdirSync(bin, { recursive: true });
    const target = path.join(bin, jaegerBinaryName());
    const partial = `${target}.${process.pid}.partial`;
    try {
      await run(go, ['build', '-trimpath', '-ldflags=-s -w', '-o', partial, JAEGER_PACKAGE], { cwd: work, env, maxBuffer: 1 << 26 });
    } catch (error) {
      rmSync(partial, { force: true });
      throw new Error(`building ${JAEGER_PACKAGE}@${JAEGER_VERSION} failed:\n${String(error.stderr ?? error.message).slice(-4000)}`, { cause: error });
    }
    renameSync(partial, target);
    log(`built Jaeger ${JAEGER_VERSION} at ${target} in ${Math.round((Date.now() - started) / 1000)} s`);
    return target;
  } finally {
    clearInterval(ticker);
    rmSync(work, { recursive: true, force: true });
  }
}

/** The binary: found, or built when Go is present; throws saying why not. */
export async function ensureJaeger(log) {
  const found = await findJaeger();
  if (found) return found;
  if (!goCommand()) throw new Error(`Jaeger ${JAEGER_VERSION} is not built and there is no \`go\` to build it (\`pnpm jaeger:install\` builds it)`);
  return installJaeger(log);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const log = (line) => process.stderr.write(`${line}\n`);
  try {
    log(`Jaeger ready at ${await ensureJaeger(log)}`);
  } catch (error) {
    log(`Jaeger ${JAEGER_VERSION} could not be built: ${error.message}`);
    process.exit(1);
  }
}
