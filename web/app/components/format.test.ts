import { describe, expect, it } from 'vitest';
import { formatDuration, formatRelative, formatTime, formatUsd } from './format.ts';

describe('formats on the run and jobs pages', () => {
  it('formats durations, costs and times the same everywhere', () => {
    expect([850, 1500, 12_400, 125_000, 3_720_000].map(formatDuration)).toEqual(['850 ms', '1.5 s', '12 s', '2 min 05 s', '1 h 02 min']);
    expect([0.012, 2.5].map(formatUsd)).toEqual(['$0.0120', '$2.50']);
    expect(formatTime('2026-01-01T10:00:00.100Z')).toBe('2026-01-01 10:00:00 UTC');
  });
});

describe('relative times (the When of every admin page)', () => {
  const now = new Date(2026, 10, 27, 15, 0, 0);
  const at = (ms: number) => new Date(now.getTime() + ms);
  it('says how long ago or how soon, in minutes, hours and calendar days', () => {
    expect(formatRelative(at(-10_000), now)).toBe('just now');
    expect(formatRelative(at(-3 * 60_000), now)).toBe('3 min ago');
    expect(formatRelative(at(2 * 3_600_000), now)).toBe('in 2 h');
    expect(formatRelative(at(-5 * 3_600_000), now)).toBe('5 h ago');
    expect(formatRelative(new Date(2026, 10, 26, 9, 0), now)).toBe('yesterday');
    expect(formatRelative(new Date(2026, 10, 28, 9, 0), now)).toBe('tomorrow');
    expect(formatRelative(new Date(2026, 10, 23, 9, 0), now)).toBe('4 days ago');
  });
  it('gives up beyond a week, where the date says more', () => {
    expect(formatRelative(new Date(2026, 9, 1), now)).toBeNull();
  });
});
