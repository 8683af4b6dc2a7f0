import { useForm, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import type { z } from 'zod';
import { constraintsOf } from './constraints.ts';

/**
 * A Conform form driven by one zod schema: constraints (`required`, `maxLength`, `pattern`)
 * rendered as attributes, validated in the browser on blur and again on the server, whose
 * reply (`lastResult`) puts its errors next to the fields, with or without JavaScript.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Conform's own bound for a form's shape
export function useSchemaForm<Schema extends z.ZodType<unknown, Record<string, any>>>(schema: Schema, options: { id: string; lastResult?: SubmissionResult<string[]> | null | undefined; defaultValue?: Record<string, unknown> }) {
  return useForm<z.input<Schema>, z.output<Schema>, string[]>({
    id: options.id,
    lastResult: options.lastResult ?? null,
    defaultValue: options.defaultValue as never,
    constraint: constraintsOf(schema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
}

/** The reply for `formId` if the last action answered that form (a page with several forms gives each its own). */
export function replyFor(actionData: unknown, formId: string): SubmissionResult<string[]> | undefined {
  const refusal = actionData as { form?: unknown; result?: SubmissionResult<string[]> } | undefined;
  return refusal && refusal.form === formId ? refusal.result : undefined;
}

/** The page that fixes the configuration error the last action refused with, if any. */
export function fixFrom(actionData: unknown, formId: string): { to: string; label: string } | null {
  const refusal = actionData as { form?: unknown; fix?: { to: string; label: string } | null } | undefined;
  return refusal && refusal.form === formId ? (refusal.fix ?? null) : null;
}
