import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';

const handle = ({ request, context, params }: LoaderFunctionArgs | ActionFunctionArgs) =>
  context.services.handlers.agentBridge(request, { vendor: params.vendor ?? '', slug: params.slug ?? '' });

export const loader = handle;
export const action = handle;
