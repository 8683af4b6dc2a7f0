import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Pids of every process below `rootPid`, parents before their children; Linux only, empty elsewhere. */
export function descendantPids(rootPid: number = process.pid): number[] {
  const out: number[] = [];
  const visit = (pid: number) => {
    let children: number[] = [];
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        children = children.concat(readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
      }
    } catch {
      return;
    }
    for (const child of children) {
      out.push(child);
      visit(child);
    }
  };
  visit(rootPid);
  return out;
}

/** CPU time (user + system, ms) of each process below `rootPid`, by pid with its name; Linux only, empty elsewhere. */
export function cpuOfDescendants(rootPid: number = process.pid): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  for (const pid of descendantPids(rootPid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.set(pid, { name: processName(cmdline), ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS });
    } catch {
      continue;
    }
  }
  return out;
}

function processName(cmdline: string[]): string {
  const joined = cmdline.join(' ');
  if (/ferretdb/.test(joined)) return 'database (ferretdb)';
  if (/mongod\b/.test(joined)) return 'database (mongod)';
  if (/runtime-main/.test(joined)) return 'agent runtime';
  if (/^nginx\b|\/nginx\b/.test(joined)) return 'nginx';
  if (/server\.ts|server\.js/.test(joined) && !/tsx\/dist\/cli/.test(joined)) return 'web process';
  return 'other';
}

/** CPU ms per unit of work by process name between two samples. */
export function cpuPerUnit(before: Map<number, { name: string; ms: number }>, after: Map<number, { name: string; ms: number }>, units: number): Map<string, number> {
  const totals = new Map<string, number>();
  for (const [pid, { name, ms }] of after) totals.set(name, (totals.get(name) ?? 0) + (ms - (before.get(pid)?.ms ?? 0)) / units);
  return totals;
}
