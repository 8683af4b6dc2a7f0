import { createHash } from 'node:crypto';
import { insertAbsorbingDuplicates, type Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { roundUsd, type RunUsage } from '../runs/index.ts';

export type UsageDimension = 'agent' | 'caller';

/** One day's usage of one agent or caller. */
export interface UsageTotal extends RunUsage {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  key: string;
  /** Ended runs that made LLM calls. */
  runs: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The most days one read covers. */
export const MAX_USAGE_DAYS = 92;

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
/** The run named by a digest: the row outlives the run (retention removes runs, totals stay) and keeps nothing of it. */
const dayDocumentId = (dimension: UsageDimension, day: string) => `day/${dimension}/${day}`;
const rowId = (dimension: UsageDimension, day: string, key: string, runId: string) => `${dimension}/${day}/${key}/${createHash('sha256').update(runId).digest('hex').slice(0, 24)}`;

/**
 * Usage totals per day per agent and per caller (ADR 0040). A run's end is stored once (the event
 * log's unique `_id` lets one writer have it), and that writer counts it: one insert of two rows,
 * whose ids name the run, so counting the same end again (a retry) changes nothing. Totals are
 * summed from a page of days' rows, read as one `_id` range per dimension, and closed days are
 * folded into one document each (`totals`).
 */
export function createUsageRollups(deps: { models: Models; logger?: Logger; now?: () => Date }) {
  const { Run, UsageRow } = deps.models;
  const now = deps.now ?? (() => new Date());

  /** Counts an ended run; `usage` is the run's as its last writer knew it (read from its head when absent). */
  async function runEnded(runId: string, usage?: RunUsage): Promise<void> {
    const head = await Run.collection.findOne({ _id: runId as never }, { projection: { agent: 1, caller: 1, usage: 1 } });
    const counted = usage ?? (head?.usage as RunUsage | undefined);
    if (!head || !counted || counted.calls === 0) return;
    const at = now();
    const day = dayOf(at);
    const values = { calls: counted.calls, inputTokens: counted.inputTokens, outputTokens: counted.outputTokens, ...(counted.costUsd !== undefined ? { costUsd: counted.costUsd } : {}), at };
    await insertAbsorbingDuplicates(UsageRow.collection, [
      { _id: rowId('agent', day, String(head.agent), runId), ...values },
      { _id: rowId('caller', day, String(head.caller), runId), ...values },
    ]);
  }

  /** The same, never failing the run's end: a lost count is logged. */
  async function countEnded(runId: string, usage?: RunUsage): Promise<void> {
    await runEnded(runId, usage).catch((error: unknown) => deps.logger?.warn('run usage not counted toward the daily totals', { runId, error }));
  }

  /**
   * Totals per day and key for the days `from` to `to` (inclusive, UTC), newest day first, keys in
   * order. A day closed for more than a day is folded on the way: its totals are inserted as one
   * document (`day/<dimension>/<day>`, all keys, so the insert is the whole fold or nothing) and
   * its run rows deleted; later reads take that document and ignore any run row of its day. Run
   * rows are read before day documents, so a fold running meanwhile is seen whole or not at all.
   */
  async function totals(dimension: UsageDimension, from: string, to: string): Promise<UsageTotal[]> {
    if (!DAY.test(from) || !DAY.test(to) || from > to) throw new DomainError('VALIDATION_FAILED', 'from and to are days (YYYY-MM-DD), from not after to');
    if ((Date.parse(to) - Date.parse(from)) / 86_400_000 >= MAX_USAGE_DAYS) throw new DomainError('VALIDATION_FAILED', `At most ${MAX_USAGE_DAYS} days at once`);
    // `0` sorts right after `/`: every row of the day `to`, and nothing after it.
    const rows = await UsageRow.collection.find({ _id: { $gt: `${dimension}/${from}/`, $lt: `${dimension}/${to}0` } as never }, { projection: { calls: 1, inputTokens: 1, outputTokens: 1, costUsd: 1 }, sort: { _id: 1 } }).toArray();
    const folded = await UsageRow.collection.find({ _id: { $gte: dayDocumentId(dimension, from), $lte: dayDocumentId(dimension, to) } as never }, { projection: { totals: 1 }, sort: { _id: 1 } }).toArray();
    const byDay = new Map<string, Map<string, UsageTotal>>();
    for (const row of rows) {
      const rest = String(row._id).slice(dimension.length + 1);
      const day = rest.slice(0, 10);
      const key = rest.slice(11, rest.lastIndexOf('/'));
      const keys = byDay.get(day) ?? new Map<string, UsageTotal>();
      const total = keys.get(key) ?? { day, key, runs: 0, calls: 0, inputTokens: 0, outputTokens: 0 };
      total.runs++;
      total.calls += Number(row.calls);
      total.inputTokens += Number(row.inputTokens);
      total.outputTokens += Number(row.outputTokens);
      if (typeof row.costUsd === 'number') total.costUsd = roundUsd((total.costUsd ?? 0) + row.costUsd);
      keys.set(key, total);
      byDay.set(day, keys);
    }
    const out: UsageTotal[] = [];
    const foldedDays = new Set<string>();
    for (const document of folded) {
      const day = String(document._id).slice(-10);
      foldedDays.add(day);
      out.push(...(document.totals as UsageTotal[]));
    }
    const closedBefore = dayOf(new Date(now().getTime() - 86_400_000));
    for (const [day, keys] of byDay) {
      if (!foldedDays.has(day)) out.push(...keys.values());
      if (day < closedBefore) await fold(dimension, day, foldedDays.has(day) ? null : [...keys.values()]).catch((error: unknown) => deps.logger?.warn('a closed day of usage not folded; the next read does it', { dimension, day, error }));
    }
    return out.sort((a, b) => (a.day === b.day ? a.key.localeCompare(b.key) : a.day < b.day ? 1 : -1));
  }

  /** Stores a closed day's totals as one document (unless it is stored: `null`), then deletes its run rows. */
  async function fold(dimension: UsageDimension, day: string, totalsOfDay: UsageTotal[] | null): Promise<void> {
    if (totalsOfDay) await insertAbsorbingDuplicates(UsageRow.collection, [{ _id: dayDocumentId(dimension, day), totals: totalsOfDay, at: now() }]);
    await UsageRow.collection.deleteMany({ _id: { $gt: `${dimension}/${day}/`, $lt: `${dimension}/${day}0` } as never });
  }

  return { runEnded, countEnded, totals };
}

export type UsageRollups = ReturnType<typeof createUsageRollups>;
