import type { Goal, RecordedFigure } from './results.ts';

/** A bench that did not run to its end: it crashed, was killed or timed out. */
export interface Crash {
  bench: string;
  reason: string;
  load1: number;
}

export type SummaryRow = RecordedFigure | Crash;

/** The summary table, one line per figure or crash, then a count of goals met, missed and crashes. */
export function formatSummary(rows: SummaryRow[]): string {
  const header = ['bench', 'figure', 'value', 'goal', 'result', 'load 1m', 'note'];
  const cells = rows.map((row) =>
    'reason' in row
      ? [row.bench, '(did not finish)', '', '', 'CRASHED', row.load1.toFixed(2), row.reason]
      : [row.bench, row.name, withUnit(formatValue(row.value), row.unit), row.goal ? formatGoal(row.goal, row.unit) : '', row.met === undefined ? '' : row.met ? 'met' : 'NOT met', row.load1.toFixed(2), row.note ?? ''],
  );
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => values.map((value, column) => (column === 2 ? value.padStart(widths[column]!) : value.padEnd(widths[column]!))).join('  ').trimEnd();
  const figures = rows.filter((row): row is RecordedFigure => !('reason' in row));
  const met = figures.filter((figure) => figure.met === true).length;
  const missed = figures.filter((figure) => figure.met === false).length;
  const crashed = rows.length - figures.length;
  return [
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...cells.map(line),
    '',
    `${figures.length} figures, ${met + missed} with a goal: ${met} met, ${missed} NOT met; ${crashed} bench(es) crashed`,
  ].join('\n');
}

function formatValue(value: number | boolean | null): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  // NaN and Infinity come back from JSON as null.
  if (value === null || !Number.isFinite(value)) return 'n/a';
  const magnitude = Math.abs(value);
  return value.toFixed(magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2);
}

function formatGoal(goal: Goal, unit?: string): string {
  return `${goal.op} ${withUnit(typeof goal.target === 'boolean' ? (goal.target ? 'yes' : 'no') : String(goal.target), unit)}`;
}

function withUnit(text: string, unit?: string): string {
  return unit ? `${text} ${unit}` : text;
}
