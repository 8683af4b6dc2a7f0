import { describe, expect, it } from 'vitest';
import { screenSchemaProblem, screenValidator } from './screen-schema.ts';

const schema = { $id: 'https://agents.example.com/screens/approve', type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'], additionalProperties: false };

describe('HITL screen schemas', () => {
  it('review and validate a schema with an $id more than once (a second review or resume used to throw)', () => {
    expect(screenSchemaProblem(schema)).toBeNull();
    expect(screenSchemaProblem({ ...schema })).toBeNull();
    expect(screenValidator(schema)({ approved: true })).toBe(true);
    // The same $id with other content: its own validator, not the first one's.
    const other = { ...schema, properties: { approved: { type: 'string' } } };
    expect(screenValidator(other)({ approved: 'yes' })).toBe(true);
    expect(screenValidator(schema)({ approved: 'yes' })).toBe(false);
  });

  it('still reports a broken schema', () => {
    expect(screenSchemaProblem({ type: 'object', properties: { x: { type: 'nonsense' } } })).toMatch(/type/);
  });
});
