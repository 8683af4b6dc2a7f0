import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { constraintsOf } from './constraints.ts';
import { checkbox, httpUrl, listOf, optionalText, requiredText, slugId } from '../schemas/fields.ts';

describe('constraintsOf', () => {
  it('renders the limits of the shared field schemas as HTML constraints', () => {
    const form = z.object({ name: requiredText('a name', 100), note: optionalText('a note', 20), url: httpUrl('the URL'), id: slugId('the id'), agents: listOf('agents', 3, 10), on: checkbox });
    expect(constraintsOf(form)).toEqual({
      name: { required: true, minLength: 1, maxLength: 100 },
      note: { required: false, maxLength: 20 },
      url: { required: true, maxLength: 500, pattern: '^https?:\\/\\/\\S+$' },
      id: { required: true, maxLength: 63, pattern: '^[a-z0-9](?:[a-z0-9]|-)*$' },
      agents: { required: false, maxLength: 36 },
      on: { required: false },
    });
  });

  it('leaves out a pattern browsers would refuse to compile (they compile `pattern` with the v flag)', () => {
    expect(constraintsOf(z.object({ code: z.string().regex(/^[a-z-]+$/) })).code).toEqual({ required: true });
  });

  it('every form schema’s patterns compile as browsers compile them, so none is left out', async () => {
    const modules = import.meta.glob<Record<string, unknown>>(['./*.ts', '!./*.test.ts', '!./*.server.ts', '!./use-schema-form.ts'], { eager: true });
    const patterns: string[] = [];
    const collect = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'pattern' && typeof value === 'string') patterns.push(value);
          else collect(value);
        }
      }
    };
    for (const exports of Object.values(modules)) {
      for (const value of Object.values(exports)) {
        if (value instanceof z.ZodType) collect(z.toJSONSchema(value, { io: 'input', unrepresentable: 'any' }));
      }
    }
    expect(patterns.length).toBeGreaterThan(3);
    const refused = patterns.filter((pattern) => {
      try {
        new RegExp(`^(?:${pattern})$`, 'v');
        return false;
      } catch {
        return true;
      }
    });
    expect(refused).toEqual([]);
  });

  it('merges the forms of a union: a shared field is required only where every member requires it', () => {
    const form = z.discriminatedUnion('intent', [z.object({ intent: z.literal('a'), name: requiredText('a name', 10) }), z.object({ intent: z.literal('b'), name: optionalText('a name', 10), id: requiredText('an id', 5) })]);
    const constraints = constraintsOf(form);
    expect(constraints.name).toEqual({ required: false, minLength: 1, maxLength: 10 });
    expect(constraints.id).toEqual({ required: true, minLength: 1, maxLength: 5 });
  });
});
