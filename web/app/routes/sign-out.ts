import type { ActionFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { endSession } from '~/auth/session.server.ts';

export const action = ({ request, context }: ActionFunctionArgs) => endSession(request, context.services);
export const loader = () => redirect('/administration');
