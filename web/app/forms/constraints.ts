import { z } from 'zod';

/** The HTML validation attributes of one field (Conform's `constraint` option). */
export interface Constraint {
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  pattern?: string;
  multiple?: boolean;
}

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; minLength?: number; maxLength?: number; pattern?: string; minimum?: number; maximum?: number; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] };

/**
 * The HTML constraints (`required`, `minLength`, `maxLength`, `pattern`, `min`, `max`,
 * `multiple`) of a form's fields, read from the input side of its zod schema through zod's own
 * JSON Schema export. (Conform's `getZodConstraint` reads zod internals that zod 4.6 no longer
 * fills, and then renders no limits at all.) A union of forms (one per `intent`) merges its
 * members' fields; a field that several members share is required only if each of them requires it.
 */
export function constraintsOf(schema: z.ZodType): Record<string, Constraint> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const members = json.anyOf ?? json.oneOf ?? [json];
  const result: Record<string, Constraint> = {};
  for (const member of members) {
    for (const [name, property] of Object.entries(member.properties ?? {})) {
      const constraint = fieldConstraint(property, member.required?.includes(name) ?? false);
      const known = result[name];
      result[name] = known ? { ...constraint, ...known, required: Boolean(known.required && constraint.required) } : constraint;
    }
  }
  return result;
}

function fieldConstraint(property: JsonSchema, required: boolean): Constraint {
  const variants = property.anyOf ?? property.oneOf;
  const nullable = variants?.some((variant) => variant.type === 'null') ?? false;
  const own = variants?.find((variant) => variant.type !== 'null') ?? property;
  const constraint: Constraint = { required: required && !nullable };
  if (own.type === 'array') {
    constraint.multiple = true;
    return constraint;
  }
  if (typeof own.minLength === 'number' && own.minLength > 0) constraint.minLength = own.minLength;
  if (typeof own.maxLength === 'number') constraint.maxLength = own.maxLength;
  if (typeof own.minimum === 'number') constraint.min = own.minimum;
  if (typeof own.maximum === 'number') constraint.max = own.maximum;
  if (own.pattern && isHtmlPattern(own.pattern)) constraint.pattern = own.pattern;
  return constraint;
}

/** Browsers compile `pattern` with the `v` flag and drop an invalid one silently; render only what they accept. */
function isHtmlPattern(pattern: string): boolean {
  try {
    new RegExp(`^(?:${pattern})$`, 'v');
    return true;
  } catch {
    return false;
  }
}
