/**
 * Times, durations and costs as the run and jobs pages show them: the same text on the server
 * and in every browser (no locale), so a page renders once.
 */
/** A duration in words people read at a glance: `850 ms`, `1.5 s`, `2 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

/** A cost in US dollars: cents for most, more digits for the fractions of a cent one call costs. */
export function formatUsd(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** An ISO time to the second, in UTC: the same text on the server and in every browser. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A moment relative to `now`, as people say it: `just now`, `3 min ago`, `in 2 h`, `yesterday`,
 * `4 days ago`; `null` beyond a week (the caller shows the date). Calendar days are local days.
 */
export function formatRelative(at: Date, now: Date): string | null {
  const diff = at.getTime() - now.getTime();
  const ago = diff <= 0;
  const span = Math.abs(diff);
  const say = (amount: number, unit: string) => (ago ? `${amount} ${unit} ago` : `in ${amount} ${unit}`);
  if (span < 45_000) return 'just now';
  if (span < HOUR) return say(Math.max(1, Math.round(span / MINUTE)), 'min');
  const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const days = Math.round((startOfDay(at) - startOfDay(now)) / DAY);
  if (span < 12 * HOUR || days === 0) return say(Math.round(span / HOUR), 'h');
  if (days === -1) return 'yesterday';
  if (days === 1) return 'tomorrow';
  if (Math.abs(days) < 7) return say(Math.abs(days), 'days');
  return null;
}
