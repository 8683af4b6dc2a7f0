import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useNavigation, useSearchParams } from '@remix-run/react';
import { isDomainError } from '@service/core/errors';
import { getUser, safeRedirect, startSession } from '~/auth/session.server.ts';

export const meta: MetaFunction = () => [{ title: 'Sign in' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context.services);
  if (user) throw redirect(safeRedirect(new URL(request.url).searchParams.get('redirectTo')));
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const email = String(form.get('email') ?? '');
  const password = String(form.get('password') ?? '');
  try {
    const user = await context.services.users.verifyCredentials(email, password);
    return await startSession(context.services, user, request, safeRedirect(form.get('redirectTo')));
  } catch (error) {
    if (isDomainError(error) && error.code === 'UNAUTHENTICATED') return data({ error: error.message, email }, { status: 401 });
    throw error;
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
