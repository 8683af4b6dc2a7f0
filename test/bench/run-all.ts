/**
 * Runs every bench in turn, each in its own process (the vitest `*.bench.ts` files, then every
 * bench script in test/bench), and ends with one table of every figure they recorded, with its
 * goal and the 1-minute load average when it was measured. A bench that crashes, or runs past
 * BENCH_TIMEOUT_MS, becomes a row of the table and the rest still run. With `--check` the exit
 * code is 1 when a goal was missed or a bench crashed; without it, 0.
 *
 *   tsx test/bench/run-all.ts [--check]   (pnpm bench, pnpm bench:check)
 *   BENCH_TIMEOUT_MS=900000 (default, per bench; growth.ts gets four times as long)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { descendantPids } from './process-cpu.ts';
import { GOAL_MISSED_EXIT_CODE, type RecordedFigure } from './results.ts';
import { formatSummary, type SummaryRow } from './summary-table.ts';
import { vitestBenchFigures } from './vitest-bench-figures.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const BIN = path.join(ROOT, 'node_modules/.bin');
/** The modules benches import; every other test/bench/*.ts is a bench script. */
const HELPERS = new Set(['bench-environment.ts', 'harness.ts', 'insert-batches.ts', 'process-cpu.ts', 'results.ts', 'run-all.ts', 'sdk-echo-server.ts', 'summary-table.ts', 'vitest-bench-figures.ts', 'wire-counter.ts']);
const NODE_FLAGS: Record<string, string[]> = { 'widget-stream.ts': ['--expose-gc'] };
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 15 * 60_000);
/** Benches that take longer by design: growth seeds 100 000 runs on each of two servers. */
const TIMEOUT_FACTOR: Record<string, number> = { 'growth.ts': 4 };
const KILL_GRACE_MS = 10_000;

interface Bench {
  name: string;
  command: string;
  args: string[];
  timeoutMs?: number;
  /** The figures it recorded, read once it has exited. */
  figures(): RecordedFigure[];
}

const check = process.argv.includes('--check');
const resultsDir = mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
const vitestReport = path.join(resultsDir, 'vitest-bench.json');
const resultsFile = (name: string) => path.join(resultsDir, `${name}.jsonl`);

const benches: Bench[] = [
  {
    name: 'vitest bench',
    command: path.join(BIN, 'vitest'),
    args: ['bench', '--run', '--project', 'test', '--outputJson', vitestReport],
    figures: () => (existsSync(vitestReport) ? vitestBenchFigures(vitestReport) : []),
  },
  ...readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.bench.ts') && !HELPERS.has(file))
    .sort()
    .map((file) => {
      const name = path.basename(file, '.ts');
      return { name, command: path.join(BIN, 'tsx'), args: [...(NODE_FLAGS[file] ?? []), path.join(BENCH_DIR, file)], timeoutMs: TIMEOUT_MS * (TIMEOUT_FACTOR[file] ?? 1), figures: () => readFigures(resultsFile(name)) };
    }),
];

const rows: SummaryRow[] = [];
try {
  for (const [index, bench] of benches.entries()) {
    console.log(`\n===== ${bench.name} (${index + 1} of ${benches.length}) =====`);
    const outcome = await run(bench.command, bench.args, { ...process.env, BENCH_RESULTS_FILE: resultsFile(bench.name) }, bench.timeoutMs ?? TIMEOUT_MS);
    const figures = bench.figures();
    rows.push(...figures);
    const finished = outcome.code === 0 || (outcome.code === GOAL_MISSED_EXIT_CODE && figures.some((figure) => figure.met === false));
    if (!finished) rows.push({ bench: bench.name, reason: outcome.reason, load1: os.loadavg()[0]! });
  }
} finally {
  rmSync(resultsDir, { recursive: true, force: true });
}

console.log(`\n===== summary of ${benches.length} benches =====\n${formatSummary(rows)}`);
if (check && rows.some((row) => 'reason' in row || row.met === false)) process.exitCode = 1;

function readFigures(file: string): RecordedFigure[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedFigure);
}

/** Runs one bench with the terminal as its stdio; past `timeoutMs` it and every process it started are stopped. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; reason: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopTree(child.pid!);
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, reason: `could not start: ${error.message}` });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const reason = timedOut ? `timed out after ${(timeoutMs / 1000).toFixed(0)} s (BENCH_TIMEOUT_MS)` : signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve({ code: timedOut ? null : code, reason });
    });
  });
}

/** SIGTERM to a process and all below it (the servers a bench starts, detached ones included), SIGKILL to any left after a grace period. */
function stopTree(pid: number) {
  const pids = [pid, ...descendantPids(pid)];
  const signal = (name: NodeJS.Signals) => {
    for (const each of pids) {
      try {
        process.kill(each, name);
      } catch {
        // already gone
      }
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), KILL_GRACE_MS);
}
