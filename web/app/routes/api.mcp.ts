import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';

export const action = ({ request, context }: ActionFunctionArgs) => context.services.handlers.mcp(request);
export const loader = ({ request, context }: LoaderFunctionArgs) => context.services.handlers.mcp(request);
