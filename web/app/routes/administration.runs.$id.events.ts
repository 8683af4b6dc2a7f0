import type { LoaderFunctionArgs } from '@remix-run/node';
import { runEventStream } from '~/runs/run-event-stream.server.ts';

export const loader = ({ request, context, params }: LoaderFunctionArgs) => runEventStream(request, context.services, params.id ?? '');
