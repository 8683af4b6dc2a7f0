import { describe, expect, it } from 'vitest';
import { assertJsonDepth, MAX_JSON_DEPTH, pathDeeperThan } from './json-depth.ts';

/** `depth` levels of `{ a: … }` around an empty array. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

describe('the JSON depth check', () => {
  it('counts objects and arrays, the value itself as level 1, and ignores scalars', () => {
    expect(pathDeeperThan('text', 0)).toBeNull();
    expect(pathDeeperThan(nested(3), 3)).toBeNull();
    expect(pathDeeperThan(nested(4), 3)).toEqual(['a', 'a', 'a']);
    expect(pathDeeperThan({ list: [1, { x: [2] }] }, 3)).toEqual(['list', 1, 'x']);
    expect(pathDeeperThan({ list: [1, { x: 'y' }] }, 3)).toBeNull();
  });

  it('walks a value far deeper than the call stack allows without running out of it', () => {
    expect(pathDeeperThan(nested(200_000), MAX_JSON_DEPTH)).toHaveLength(MAX_JSON_DEPTH);
  });

  it('refuses with VALIDATION_FAILED naming where and the limit, and lets the limit itself through', () => {
    expect(() => assertJsonDepth({ message: nested(MAX_JSON_DEPTH - 1) }, 'Invalid params')).not.toThrow();
    expect(() => assertJsonDepth({ message: nested(MAX_JSON_DEPTH) }, 'Invalid params')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^Invalid params: message\.a\.a\.a\.a\.a\.a\.a…: nested more than 64 levels deep/) }));
  });
});
