import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useNavigation, useSearchParams } from '@remix-run/react';
import { isDomainError } from '@service/core/errors';
import { MAX_SIGN_IN_FORM_BYTES, readFormLimited } from '~/auth/form.server.ts';
import { getUser, safeRedirect, startSession, unavailableOr } from '~/auth/session.server.ts';

export const meta: MetaFunction = () => [{ title: 'Sign in' }];

/** A throttled attempt tells the client when to come back. */
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get('retry-after');
  return retryAfter ? { 'retry-after': retryAfter } : new Headers();
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context.services);
  if (user) throw redirect(safeRedirect(new URL(request.url).searchParams.get('redirectTo')));
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  let email = '';
  try {
    const form = await readFormLimited(request, MAX_SIGN_IN_FORM_BYTES);
    email = String(form.get('email') ?? '');
    const password = String(form.get('password') ?? '');
    const user = await context.services.signIn.attempt({ email, password, address: context.clientAddress });
    return await startSession(context.services, user, request, safeRedirect(form.get('redirectTo')));
  } catch (error) {
    if (!isDomainError(error)) throw error;
    switch (error.code) {
      case 'UNAUTHENTICATED':
        return data({ error: error.message, email }, { status: 401 });
      case 'RATE_LIMITED': {
        const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? 60;
        return data({ error: error.message, email }, { status: 429, headers: { 'retry-after': String(retryAfter) } });
      }
      case 'PAYLOAD_TOO_LARGE':
      case 'BAD_REQUEST':
        return data({ error: error.message, email }, { status: error.httpStatus });
      default:
        throw await unavailableOr(error, context.services);
    }
  }
}

export default function SignIn() {
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state !== 'idle';
  return (
    <main className="centered">
      <h1>Sign in</h1>
      <Form method="post">
        <input type="hidden" name="redirectTo" value={params.get('redirectTo') ?? '/administration'} />
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required defaultValue={result?.email} autoFocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {result?.error ? (
          <p className="error" role="alert">
            {result.error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </Form>
    </main>
  );
}
