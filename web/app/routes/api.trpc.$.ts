import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { handleTrpc } from '~/trpc/handler.server.ts';

export const loader = ({ request, context }: LoaderFunctionArgs) => handleTrpc(request, context.services);
export const action = ({ request, context }: ActionFunctionArgs) => handleTrpc(request, context.services);
