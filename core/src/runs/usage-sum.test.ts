import { describe, expect, it } from 'vitest';
import { addCalls, reportedCalls, reportedUsage } from './usage-sum.ts';

describe('usage sums', () => {
  it('adds calls to a usage, rounding cost to a hundred-millionth of a dollar', () => {
    const call = { provider: 'p', model: 'm', inputTokens: 10, outputTokens: 2, durationMs: 5 };
    expect(addCalls(undefined, [])).toBeUndefined();
    expect(addCalls(undefined, [call])).toEqual({ calls: 1, inputTokens: 10, outputTokens: 2 });
    expect(addCalls({ calls: 1, inputTokens: 1, outputTokens: 1, costUsd: 0.1 }, [{ ...call, costUsd: 0.2 }])).toEqual({ calls: 2, inputTokens: 11, outputTokens: 3, costUsd: 0.3 });
  });

  it('keeps what another process reported to a step event’s shape', () => {
    expect(reportedCalls('nonsense')).toEqual([]);
    expect(reportedCalls([{ provider: 'p'.repeat(300), model: 7, inputTokens: -3, outputTokens: 1.6, durationMs: Infinity, costUsd: 99 }])).toEqual([{ provider: 'p'.repeat(200), model: 'unknown', inputTokens: 0, outputTokens: 2, durationMs: 0 }]);
  });

  it('keeps a peer’s reported usage to a usage’s shape, and none when it reported none', () => {
    for (const none of [undefined, null, 'a lot', 42, {}, [1, 2, 3], { calls: '3' }]) expect(reportedUsage(none), JSON.stringify(none)).toBeNull();
    expect(reportedUsage({ calls: 2, inputTokens: 1_500, outputTokens: 120, costUsd: 0.0061 })).toEqual({ calls: 2, inputTokens: 1_500, outputTokens: 120, costUsd: 0.0061 });
    // A hostile or broken peer: negative, fractional, huge or non-numeric counts; a cost that is not a non-negative number is left out.
    expect(reportedUsage({ calls: -1, inputTokens: 1e30, outputTokens: '9', costUsd: -5, extra: { nested: true } })).toEqual({ calls: 0, inputTokens: 1e12, outputTokens: 0 });
    expect(reportedUsage({ calls: 1.4, inputTokens: 3, outputTokens: 4, costUsd: Number.NaN })).toEqual({ calls: 1, inputTokens: 3, outputTokens: 4 });
  });
});
