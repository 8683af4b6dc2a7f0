import type { z } from 'zod';
import { DomainError } from './domain-error.ts';

/** `steps[1].screen.schema`, `["@acme/x"]`: a zod issue path as a reader would write it. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out || '(root)';
}

/**
 * Parses untrusted input, or throws VALIDATION_FAILED whose message and `details` name every
 * bad field: the one way input is refused across the service's seams.
 */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), reason: issue.message }));
  throw new DomainError('VALIDATION_FAILED', `${what}: ${details.map((d) => `${d.path}: ${d.reason}`).join('; ')}`, { details });
}
