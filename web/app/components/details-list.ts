/**
 * Audit details as rows a person reads: nested objects and arrays flattened to dotted keys
 * (`changes.enabled`, `agents.0`), an array of plain values joined, every value as text.
 */
export function flattenDetails(value: unknown, prefix = ''): [string, string][] {
  if (value === null || value === undefined) return prefix ? [[prefix, String(value)]] : [];
  if (Array.isArray(value)) {
    if (value.length === 0) return prefix ? [[prefix, '(none)']] : [];
    if (value.every((item) => item === null || typeof item !== 'object')) return [[prefix || 'value', value.map(String).join(', ')]];
    return value.flatMap((item, index) => flattenDetails(item, prefix ? `${prefix}.${index}` : String(index)));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return prefix ? [[prefix, '(none)']] : [];
    return entries.flatMap(([key, item]) => flattenDetails(item, prefix ? `${prefix}.${key}` : key));
  }
  return [[prefix || 'value', String(value)]];
}

/** A value cut to `max` characters (with an ellipsis), so one long value cannot swamp a row. */
export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
