import { readFileSync } from 'node:fs';
import path from 'node:path';
import { judgeFigure, type RecordedFigure } from './results.ts';

/** The parts of `vitest bench --outputJson` read here. */
interface VitestBenchReport {
  files: { filepath: string; groups: { fullName: string; benchmarks: { name: string; median: number; hz: number; rme: number }[] }[] }[];
}

/**
 * Figures from a `vitest bench --outputJson` report: each benchmark's median and, in a group
 * with a benchmark named "baseline…", each other benchmark's median over the baseline's (the
 * ratio is the claim; the absolute times belong to the machine). vitest bench files carry no
 * goals, and the load average is the one when the report is read, right after vitest exits.
 */
export function vitestBenchFigures(reportFile: string): RecordedFigure[] {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as VitestBenchReport;
  const figures: RecordedFigure[] = [];
  for (const file of report.files) {
    const bench = path.basename(file.filepath, '.ts');
    for (const group of file.groups) {
      // fullName is "<file> > <describe>"; the file is already the bench column.
      const groupName = group.fullName.split(' > ').slice(1).join(' > ');
      const baseline = group.benchmarks.find((benchmark) => benchmark.name.startsWith('baseline'));
      for (const benchmark of group.benchmarks) {
        const name = `${groupName} > ${benchmark.name}`;
        figures.push(judgeFigure(bench, { name: `${name}: median`, value: benchmark.median * 1000, unit: 'µs', note: `${benchmark.hz.toFixed(0)} ops/s ±${benchmark.rme.toFixed(1)}%` }));
        if (baseline && benchmark !== baseline) figures.push(judgeFigure(bench, { name: `${name}: median ratio to the baseline`, value: benchmark.median / baseline.median }));
      }
    }
  }
  return figures;
}
