import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';

export const meta: MetaFunction = () => [{ title: 'Not found' }];

/** Any path no route serves: a 404 page (the root error boundary), never an error logged with a stack. */
export function loader(_: LoaderFunctionArgs) {
  throw new Response('There is no page at this address.', { status: 404, statusText: 'Not Found' });
}

export default function NotFound() {
  return null;
}
