import type { z } from 'zod';
import { formatPath } from '../errors/index.ts';

/** One review problem: where it is (`file:path`) and why it is a problem. */
export interface ReviewFinding {
  path: string;
  reason: string;
}

export function schemaFindings(file: string, error: z.ZodError): ReviewFinding[] {
  return error.issues.map((issue) => ({ path: `${file}:${formatPath(issue.path)}`, reason: issue.message }));
}

export { formatPath };
