import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';

export const loader = ({ request, context }: LoaderFunctionArgs) => context.services.handlers.llmBridge(request);
export const action = ({ request, context }: ActionFunctionArgs) => context.services.handlers.llmBridge(request);
