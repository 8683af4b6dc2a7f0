import { getFormProps, type Submission, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react';
import { isDomainError } from '@service/core/errors';
import type { z } from 'zod';
import { MAX_SIGN_IN_FORM_BYTES, readFormLimited } from '~/auth/form.server.ts';
import { getUser, safeRedirect, startSession, unavailableOr } from '~/auth/session.server.ts';
import { Button, Card, PageHeader, TextField } from '~/components/ui/index.ts';
import { FormErrors, replyFor, useSchemaForm } from '~/forms/index.ts';
import { signInForm } from '~/forms/sign-in.ts';

export const meta: MetaFunction = () => [{ title: 'Sign in' }];

/** A throttled attempt tells the client when to come back. */
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get('retry-after');
  return retryAfter ? { 'retry-after': retryAfter } : new Headers();
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context.services);
  if (user) throw redirect(safeRedirect(new URL(request.url).searchParams.get('redirectTo')));
  return { productName: context.services.config.identity.productName };
}

/** What a refused sign-in answers: the message, and Conform's reply (never with the password) to fill the form again. */
interface SignInRefusal {
  form: 'sign-in';
  error: string | null;
  result: SubmissionResult<string[]> | null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  let submission: Submission<z.input<typeof signInForm>, string[], z.output<typeof signInForm>> | null = null;
  try {
    const form = await readFormLimited(request, MAX_SIGN_IN_FORM_BYTES);
    submission = parseWithZod(form, { schema: signInForm }) as Submission<z.input<typeof signInForm>, string[], z.output<typeof signInForm>>;
    if (submission.status !== 'success') return data<SignInRefusal>({ form: 'sign-in', error: null, result: submission.reply({ hideFields: ['password'] }) }, { status: 400 });
    const { email, password, redirectTo } = submission.value;
    const user = await context.services.signIn.attempt({ email, password, address: context.clientAddress });
    return await startSession(context.services, user, request, safeRedirect(redirectTo));
  } catch (error) {
    if (!isDomainError(error)) throw error;
    const refusal = (status: number, init?: { headers: Record<string, string> }) =>
      data<SignInRefusal>({ form: 'sign-in', error: error.message, result: submission?.reply({ formErrors: [error.message], hideFields: ['password'] }) ?? null }, { status, ...init });
    switch (error.code) {
      case 'UNAUTHENTICATED':
        return refusal(401);
      case 'RATE_LIMITED': {
        const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? 60;
        return refusal(429, { headers: { 'retry-after': String(retryAfter) } });
      }
      case 'PAYLOAD_TOO_LARGE':
      case 'BAD_REQUEST':
        return refusal(error.httpStatus);
      default:
        throw await unavailableOr(error, context.services);
    }
  }
}

export default function SignIn() {
  const { productName } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state !== 'idle';
  const [form, fields] = useSchemaForm(signInForm, { id: 'sign-in', lastResult: replyFor(result, 'sign-in') });
  // A refusal read before the form was (a body over the limit) has a message but no reply.
  const errors = form.errors ?? (result?.error ? [result.error] : undefined);
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-10">
      <Card className="w-full max-w-sm">
        <PageHeader eyebrow={productName} title="Sign in" />
        <Form method="post" {...getFormProps(form)} className="space-y-4">
          <input type="hidden" name="redirectTo" value={params.get('redirectTo') ?? '/administration'} />
          <TextField meta={fields.email} type="email" label="Email" autoComplete="username" autoFocus />
          <TextField meta={fields.password} type="password" label="Password" autoComplete="current-password" />
          <FormErrors id={form.errorId} errors={errors} />
          <Button type="submit" busy={busy} className="w-full">
            Sign in
          </Button>
        </Form>
      </Card>
    </main>
  );
}
