import { appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The figures a bench reports. Each recorded figure is appended as one JSON line to
 * BENCH_RESULTS_FILE when that is set (run-all.ts reads them back for its summary table), with
 * the machine's 1-minute load average at the moment it was recorded: on a shared 2-core machine
 * a figure taken under load says so.
 */
export type Goal = { op: '<=' | '>='; target: number } | { op: '='; target: boolean };

export interface Figure {
  name: string;
  value: number | boolean;
  unit?: string;
  goal?: Goal;
  note?: string;
}

export interface RecordedFigure extends Figure {
  bench: string;
  /** Undefined when the figure has no goal. */
  met?: boolean;
  load1: number;
}

/** A bench that ran to its end but missed a goal exits with this code; any other non-zero exit is a crash. */
export const GOAL_MISSED_EXIT_CODE = 3;

/** The figure with its verdict and the load average now, without recording it anywhere. */
export function judgeFigure(bench: string, figure: Figure): RecordedFigure {
  return { bench, ...figure, met: figure.goal && goalMet(figure.value, figure.goal), load1: os.loadavg()[0]! };
}

/** Records a figure of the running bench (named after its script); a missed goal makes the bench exit GOAL_MISSED_EXIT_CODE. */
export function recordFigure(figure: Figure): RecordedFigure {
  const recorded = judgeFigure(path.basename(process.argv[1] ?? 'bench', '.ts'), figure);
  if (recorded.met === false && !process.exitCode) process.exitCode = GOAL_MISSED_EXIT_CODE;
  if (process.env.BENCH_RESULTS_FILE) appendFileSync(process.env.BENCH_RESULTS_FILE, `${JSON.stringify(recorded)}\n`);
  return recorded;
}

/** 'met' or 'NOT met', as the benches print it beside a goal. */
export function verdict(figure: RecordedFigure): string {
  return figure.met ? 'met' : 'NOT met';
}

function goalMet(value: number | boolean, goal: Goal): boolean {
  if (goal.op === '=') return value === goal.target;
  if (typeof value !== 'number') throw new Error(`a ${goal.op} goal needs a number, got ${value}`);
  return goal.op === '<=' ? value <= goal.target : value >= goal.target;
}
