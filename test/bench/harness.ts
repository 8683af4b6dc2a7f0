/**
 * A side-by-side timing harness: baseline and candidate run alternately in one process, so
 * machine noise hits both alike, and the report is a ratio of medians, not absolute seconds.
 */
import { recordFigure, verdict } from './results.ts';

export interface SideBySide {
  name: string;
  baselineName: string;
  candidateName: string;
  baselineMs: number[];
  candidateMs: number[];
}

export async function sideBySide(
  name: string,
  options: { iterations: number; warmup?: number },
  baseline: { name: string; run: (i: number) => Promise<unknown> },
  candidate: { name: string; run: (i: number) => Promise<unknown> },
): Promise<SideBySide> {
  const result: SideBySide = { name, baselineName: baseline.name, candidateName: candidate.name, baselineMs: [], candidateMs: [] };
  const total = (options.warmup ?? 1) + options.iterations;
  for (let i = 0; i < total; i++) {
    // Alternate which goes first so neither always runs on a warmer machine.
    const order = i % 2 === 0 ? ([baseline, candidate] as const) : ([candidate, baseline] as const);
    for (const task of order) {
      const started = performance.now();
      await task.run(i);
      const elapsed = performance.now() - started;
      if (i >= (options.warmup ?? 1)) (task === baseline ? result.baselineMs : result.candidateMs).push(elapsed);
    }
  }
  return result;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** Prints the comparison and records its ratio (candidate p50 / baseline p50) as a figure, against `goal` when given. */
export function report(result: SideBySide, goal?: number): number {
  const base = percentile(result.baselineMs, 50);
  const cand = percentile(result.candidateMs, 50);
  const ratio = cand / base;
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  const figure = recordFigure({ name: `${result.name}: p50 ratio`, value: ratio, goal: goal ? { op: '<=', target: goal } : undefined, note: `${fmt(cand)} vs ${fmt(base)}` });
  console.log(`\n${result.name} (${result.candidateMs.length} iterations each, interleaved)`);
  console.log(`  baseline  ${result.baselineName}: p50 ${fmt(base)}, p90 ${fmt(percentile(result.baselineMs, 90))}`);
  console.log(`  candidate ${result.candidateName}: p50 ${fmt(cand)}, p90 ${fmt(percentile(result.candidateMs, 90))}`);
  console.log(`  ratio (candidate p50 / baseline p50): ${ratio.toFixed(3)}${goal ? `  (goal <= ${goal}: ${verdict(figure)})` : ''}`);
  return ratio;
}
