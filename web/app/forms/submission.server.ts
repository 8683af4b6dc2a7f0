import type { Submission, SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import { data } from '@remix-run/node';
import type { z } from 'zod';
import { refusalOf } from '~/forms/action-result.server.ts';
import { fixFor } from './fix-links.ts';

/** What a form action answers when a form is refused: which form, and Conform's reply for it. */
export interface FormRefusal {
  form: string;
  result: SubmissionResult<string[]>;
  fix: { to: string; label: string } | null;
}

/**
 * Runs the work of a valid submission. An invalid one answers 400 with its field errors; a
 * refusal of the work (DomainError, TRPCError) answers its status with the message as the
 * form's error (left out when its findings all name fields), findings whose path names a field next to that field, and the page that fixes a
 * configuration error. Anything else (a bug, an outage) propagates to the error boundary.
 * `hideFields` (secrets, tokens) are never echoed back in a refusal.
 */
export async function submitForm<Schema extends z.ZodType, T>(formId: string, form: FormData, schema: Schema, work: (value: z.output<Schema>) => Promise<T>, options: { hideFields?: readonly string[] } = {}) {
  const submission = parseWithZod(form, { schema }) as Submission<z.input<Schema>, string[], z.output<Schema>>;
  // Conform sends a refused form's values back to fill it again: never a secret typed into it.
  const hideFields = [...(options.hideFields ?? [])];
  if (submission.status !== 'success') return data<FormRefusal>({ form: formId, result: submission.reply({ hideFields }), fix: null }, { status: 400 });
  try {
    return await work(submission.value);
  } catch (error) {
    if (error instanceof Response) throw error;
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    const { message } = refusal;
    const fieldErrors: Record<string, string[]> = {};
    const formErrors = [message];
    const fields = new Set(Object.keys(submission.payload));
    for (const finding of refusal.details as { path?: unknown; reason?: unknown }[]) {
      if (typeof finding?.path !== 'string' || typeof finding.reason !== 'string') continue;
      if (fields.has(finding.path)) (fieldErrors[finding.path] ??= []).push(finding.reason);
      else formErrors.push(`${finding.path}: ${finding.reason}`);
    }
    // A refusal wholly about fields is said next to them, not once more above the form.
    if (Object.keys(fieldErrors).length > 0 && formErrors.length === 1) formErrors.length = 0;
    return data<FormRefusal>({ form: formId, result: submission.reply({ formErrors, fieldErrors, hideFields }), fix: fixFor({ code: refusal.code, message }) }, { status: refusal.status });
  }
}
