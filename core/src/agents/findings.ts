import type { z } from 'zod';

/** One review problem: where it is (`file:path`) and why it is a problem. */
export interface ReviewFinding {
  path: string;
  reason: string;
}

export function schemaFindings(file: string, error: z.ZodError): ReviewFinding[] {
  return error.issues.map((issue) => ({ path: `${file}:${formatPath(issue.path)}`, reason: issue.message }));
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (typeof part === 'string' && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out || '(root)';
}
