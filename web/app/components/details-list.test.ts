import { describe, expect, it } from 'vitest';
import { bounded, flattenDetails } from './details-list.ts';

describe('audit details as a key/value list', () => {
  it('flattens nested values to dotted keys', () => {
    expect(flattenDetails({ name: 'Peer', allowedAgents: ['@tour/a', '@tour/b'], changes: { enabled: true, limits: { perMinute: 5 } }, steps: [{ id: 'x' }], empty: {}, none: null })).toEqual([
      ['name', 'Peer'],
      ['allowedAgents', '@tour/a, @tour/b'],
      ['changes.enabled', 'true'],
      ['changes.limits.perMinute', '5'],
      ['steps.0.id', 'x'],
      ['empty', '(none)'],
      ['none', 'null'],
    ]);
  });
  it('shows no rows for no details, and a plain value as one row', () => {
    expect(flattenDetails(null)).toEqual([]);
    expect(flattenDetails({})).toEqual([]);
    expect(flattenDetails('text')).toEqual([['value', 'text']]);
  });
  it('bounds long values', () => {
    expect(bounded('abcdef', 4)).toBe('abc…');
    expect(bounded('abc', 4)).toBe('abc');
  });
});
