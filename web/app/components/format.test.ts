import { describe, expect, it } from 'vitest';
import { formatDuration, formatTime, formatUsd } from './format.ts';

describe('formats on the run and jobs pages', () => {
  it('formats durations, costs and times the same everywhere', () => {
    expect([850, 1500, 12_400, 125_000, 3_720_000].map(formatDuration)).toEqual(['850 ms', '1.5 s', '12 s', '2 min 05 s', '1 h 02 min']);
    expect([0.012, 2.5].map(formatUsd)).toEqual(['$0.0120', '$2.50']);
    expect(formatTime('2026-01-01T10:00:00.100Z')).toBe('2026-01-01 10:00:00 UTC');
  });
});
