import type { LoaderFunctionArgs } from '@remix-run/node';

export const loader = ({ request, context }: LoaderFunctionArgs) => context.services.handlers.widgetBundle(request);
