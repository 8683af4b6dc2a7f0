import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';

const handle = ({ request, context, params }: ActionFunctionArgs | LoaderFunctionArgs) => context.services.handlers.widgetUndo(request, params.slug ?? '');

export const action = handle;
export const loader = handle;
