/**
 * Bounded summaries for audit rows. An audit row says what was done to what, never the content
 * written: primitive inputs can carry megabytes (base64 media, whole bodies) and credentials, so
 * rows keep each key's type and size, a short preview only of identifiers and enums, and never
 * any value of a secret-looking key.
 */

/** The most a summary takes, as JSON (UTF-8 bytes). */
export const MAX_AUDIT_SUMMARY_BYTES = 2 * 1024;
/** `details` larger than this, as JSON, are replaced by their summary when a row is recorded. */
export const MAX_AUDIT_DETAILS_BYTES = 8 * 1024;

const PREVIEW_CHARS = 64;
const KEY_CHARS = 64;
const MAX_CHANGES = 20;

/** Keys whose values are never shown, not even in part (a false positive only hides a preview). */
const SECRET_KEY = /pass|secret|token|key|credential|auth|cookie|session|signature|private|bearer|salt|otp|nonce|cert/i;
/** Keys that name or classify something rather than carry content: their strings may be previewed. */
const PREVIEW_KEY = /^(id|ids|[a-z]+Ids?|status|state|slug|filename|fileName|mimeType|type|kind|connector|format|locale|language|lang|orderby|order|role|action|force)$/;

export type ValueSummary =
  | { type: 'string'; bytes: number; preview?: string }
  | { type: 'number' | 'boolean'; value?: number | boolean }
  | { type: 'null' }
  | { type: 'array'; count: number; bytes: number | null }
  | { type: 'object'; bytes: number | null; keys?: Record<string, ValueSummary>; omitted?: number }
  | { type: 'redacted' }
  | { type: string };

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

function jsonBytes(value: unknown): number | null {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : byteLength(text);
  } catch {
    return null;
  }
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

function summariseValue(key: string, value: unknown, depth: number): ValueSummary {
  if (SECRET_KEY.test(key)) return { type: 'redacted' };
  if (value === null) return { type: 'null' };
  if (typeof value === 'string') {
    const summary: ValueSummary = { type: 'string', bytes: byteLength(value) };
    return PREVIEW_KEY.test(key) ? { ...summary, preview: clip(value, PREVIEW_CHARS) } : summary;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return { type: typeof value as 'number' | 'boolean', value };
  if (Array.isArray(value)) return { type: 'array', count: value.length, bytes: jsonBytes(value) };
  if (typeof value === 'object') {
    const bytes = jsonBytes(value);
    if (depth > 0) return { type: 'object', bytes };
    const nested = summariseEntries(value as Record<string, unknown>, depth + 1, MAX_AUDIT_SUMMARY_BYTES / 2);
    return { type: 'object', bytes, keys: nested.entries, ...(nested.omitted ? { omitted: nested.omitted } : {}) };
  }
  return { type: typeof value };
}

/** Adds entries while the JSON stays within `budget` bytes; what does not fit is counted. */
function summariseEntries(record: Record<string, unknown>, depth: number, budget: number): { entries: Record<string, ValueSummary>; omitted: number } {
  const entries: Record<string, ValueSummary> = {};
  let size = 2; // {}
  let omitted = 0;
  for (const [rawKey, value] of Object.entries(record)) {
    if (value === undefined || typeof value === 'function') continue;
    const key = clip(rawKey, KEY_CHARS);
    if (key in entries) {
      omitted++;
      continue;
    }
    let summary = summariseValue(rawKey, value, depth);
    let cost = byteLength(JSON.stringify(key)) + 2 + byteLength(JSON.stringify(summary));
    if (size + cost > budget && 'keys' in summary) {
      // Too big with its nested keys: keep the object's size alone.
      summary = { type: 'object', bytes: (summary as { bytes: number | null }).bytes };
      cost = byteLength(JSON.stringify(key)) + 2 + byteLength(JSON.stringify(summary));
    }
    if (size + cost > budget) {
      omitted++;
      continue;
    }
    entries[key] = summary;
    size += cost;
  }
  return { entries, omitted };
}

/**
 * The audit form of a primitive's (or any) input: per top-level key its type and size (strings in
 * UTF-8 bytes, arrays as counts, objects one level deep), a short preview only for identifier and
 * enum keys, nothing of secret-looking keys; at most {@link MAX_AUDIT_SUMMARY_BYTES} of JSON, the
 * keys that do not fit counted in `_omitted`.
 */
export function summariseInput(input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { _value: summariseValue('value', input, 1) };
  // Room is kept for the `_omitted` count.
  const { entries, omitted } = summariseEntries(input as Record<string, unknown>, 0, MAX_AUDIT_SUMMARY_BYTES - 20);
  return omitted ? { ...entries, _omitted: omitted } : entries;
}

/** The audit form of a field diff: the field names and the byte sizes of both values, never the values. */
export function summariseChanges(changes: readonly { field: string; before: string; after: string }[]): { field: string; beforeBytes: number; afterBytes: number }[] {
  return changes.slice(0, MAX_CHANGES).map((change) => ({ field: clip(change.field, KEY_CHARS), beforeBytes: byteLength(change.before), afterBytes: byteLength(change.after) }));
}

/** What a row stores as `details`: as given when small, else its summary. */
export function boundDetails(details: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!details) return {};
  const bytes = jsonBytes(details);
  return bytes !== null && bytes <= MAX_AUDIT_DETAILS_BYTES ? details : { _summarised: true, ...summariseInput(details) };
}
