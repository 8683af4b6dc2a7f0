import { Ajv, type ValidateFunction } from 'ajv';

/**
 * JSON Schemas of HITL screens. Each schema is compiled in an Ajv instance of its own: one shared
 * instance keeps every schema it compiled and refuses a second schema with the same `$id`, so a
 * second review or a second resume of the same screen used to fail. Compiled validators are
 * reused by content, a bounded number of them.
 */
const MAX_CACHED = 200;
const validators = new Map<string, ValidateFunction>();

/** The validator for a screen's answers; the same schema text gets the same compiled function. */
export function screenValidator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const known = validators.get(key);
  if (known) return known;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  if (validators.size >= MAX_CACHED) validators.delete(validators.keys().next().value!);
  validators.set(key, validate);
  return validate;
}

/** Why a screen schema is not usable (strict mode, as the review requires), or null when it is. */
export function screenSchemaProblem(schema: Record<string, unknown>): string | null {
  const ajv = new Ajv({ strict: true, allErrors: true, validateSchema: true });
  try {
    if (!ajv.validateSchema(schema)) return ajv.errorsText(ajv.errors);
    ajv.compile(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
