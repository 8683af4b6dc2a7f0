import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

/** One page per connector's widget, `/administration/assistants/<cms>-widget`. */
const PAGES = { 'cms-a-widget': { connector: 'cms_a', title: 'CMS-A (Drupal)' }, 'cms-b-widget': { connector: 'cms_b', title: 'CMS-B (WordPress)' } } as const;

function pageOf(param: string | undefined) {
  if (!param || !(param in PAGES)) throw new Response('No such assistant', { status: 404 });
  return PAGES[param as keyof typeof PAGES];
}

export const meta: MetaFunction = () => [{ title: 'Assistant' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const page = pageOf(params.page);
  const caller = await serverCaller(request, context.services);
  return { page, rows: await caller.assistants.list({ connector: page.connector }), llm: { provider: context.services.llm.name, model: context.services.llm.model } };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const page = pageOf(params.page);
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const instanceId = String(form.get('instanceId') ?? '');
    const caller = await serverCaller(request, context.services);
    switch (form.get('intent')) {
      case 'rotate':
        return { key: { instanceId, value: (await caller.assistants.rotateKey({ connector: page.connector, instanceId })).key } };
      case 'revoke':
        await caller.assistants.revokeKey({ connector: page.connector, instanceId });
        return { notice: `Widget key of ${instanceId} revoked.` };
      default:
        await caller.assistants.configure({
          connector: page.connector,
          instanceId,
          allowedOrigins: String(form.get('allowedOrigins') ?? '').split(/[\s,]+/).filter(Boolean),
          historyTurns: Number(form.get('historyTurns') ?? 10),
        });
        return { notice: `Saved the widget settings of ${instanceId}.` };
    }
  });
}

export default function AssistantPage() {
  const { page, rows, llm } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>Assistants › {page.title}</h1>
      <p className="hint">
        LLM: {llm.provider === 'scripted' ? 'scripted (offline, no model configured)' : `${llm.provider} · ${llm.model}`}. The widget key goes into the CMS-side settings; it only opens this assistant, never the MCP primitives.
      </p>
      {result && 'key' in result && result.key ? (
        <div className="notice" role="status">
          New widget key for <code>{result.key.instanceId}</code> (shown once): <code data-testid="widget-key">{result.key.value}</code>{' '}
          <button type="button" className="secondary" onClick={() => void navigator.clipboard?.writeText(result.key!.value)}>
            Copy
          </button>
        </div>
      ) : null}
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      {rows.length === 0 ? <p>Add an instance under Connectors first.</p> : null}
      {rows.map(({ instance, widget }) => (
        <fieldset key={instance.id}>
          <legend>
            {instance.name} <code>{instance.id}</code>
          </legend>
          <p>
            Key: {widget.keySet ? <code>{widget.keyPrefix}…</code> : 'not set'} · site origin <code>{widget.siteOrigin}</code>
          </p>
          <Form method="post" className="row-actions">
            <input type="hidden" name="instanceId" value={instance.id} />
            <button type="submit" name="intent" value="rotate">
              {widget.keySet ? 'Rotate key' : 'Generate key'}
            </button>
            {widget.keySet ? (
              <button type="submit" name="intent" value="revoke" className="secondary">
                Revoke key
              </button>
            ) : null}
          </Form>
          <Form method="post">
            <input type="hidden" name="instanceId" value={instance.id} />
            <div className="form-grid">
              <label htmlFor={`origins-${instance.id}`}>Extra allowed origins</label>
              <input id={`origins-${instance.id}`} name="allowedOrigins" defaultValue={widget.allowedOrigins.filter((o) => o !== widget.siteOrigin).join(' ')} />
              <label htmlFor={`turns-${instance.id}`}>History cap (turns)</label>
              <input id={`turns-${instance.id}`} name="historyTurns" type="number" min={1} max={50} defaultValue={widget.historyTurns} />
            </div>
            <button type="submit" name="intent" value="configure">
              Save
            </button>
          </Form>
        </fieldset>
      ))}
    </>
  );
}
