/** A step's `when`: `steps.<id>.output[.<field>…]`, negated by a leading `!`. */
export const CONDITION = /^(!?)steps\.([a-z][a-z0-9_-]{0,62})\.output((?:\.[A-Za-z0-9_-]+)*)$/;

/** The step id a condition reads, or null when it is not a condition. */
export function conditionStep(when: string): string | null {
  return CONDITION.exec(when)?.[2] ?? null;
}

/**
 * Whether a step whose `when` is `when` runs: the value at the path is truthy (JavaScript's sense:
 * false, null, missing, 0 and "" are false), or falsy when negated. A step without `when` runs.
 */
export function conditionHolds(when: string | undefined, outputs: Record<string, unknown>): boolean {
  if (when === undefined) return true;
  const match = CONDITION.exec(when);
  if (!match) return false;
  let value: unknown = outputs[match[2]!];
  for (const key of match[3]!.split('.').slice(1)) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return match[1] === '!' ? !value : !!value;
}
