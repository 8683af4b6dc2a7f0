import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { isRouteErrorResponse, useRouteError } from '@remix-run/react';
import { ButtonLink, Card, PageHeader } from '~/components/ui/index.ts';

export const meta: MetaFunction = () => [{ title: 'Not found' }];

const NOT_FOUND = 'There is no page at this address.';

/** Any path no route serves: a 404 page, never an error logged with a stack. */
export function loader(_: LoaderFunctionArgs) {
  throw new Response(NOT_FOUND, { status: 404, statusText: 'Not Found' });
}

export default function NotFound() {
  return null;
}

/** The 404 page: a centred card (no admin shell, so it also serves addresses outside Administration). */
export function ErrorBoundary() {
  const error = useRouteError();
  const title = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : 'Something went wrong';
  const detail = isRouteErrorResponse(error) && typeof error.data === 'string' ? error.data : NOT_FOUND;
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-10">
      <Card className="w-full max-w-md">
        <PageHeader title={title} description={detail} />
        <ButtonLink to="/administration">Back to Administration</ButtonLink>
      </Card>
    </main>
  );
}
