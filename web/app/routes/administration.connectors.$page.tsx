import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

/** One page per connector, `/administration/connectors/<cms>-widget`: adding a CMS adds no route. */
const PAGES = {
  'cms-a-widget': { connector: 'cms_a', title: 'CMS-A (Drupal)', credential: 'MCP key of the tools module', needsUsername: false },
  'cms-b-widget': { connector: 'cms_b', title: 'CMS-B (WordPress)', credential: 'Application password', needsUsername: true },
} as const;
type Page = keyof typeof PAGES;

function pageOf(param: string | undefined) {
  if (!param || !(param in PAGES)) throw new Response('No such connector', { status: 404 });
  return PAGES[param as Page];
}

export const meta: MetaFunction = () => [{ title: 'Connector' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const page = pageOf(params.page);
  return { page, instances: await (await serverCaller(request, context.services)).connectors.instances({ connector: page.connector }) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const page = pageOf(params.page);
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const field = (name: string) => String(form.get(name) ?? '').trim();
    const caller = await serverCaller(request, context.services);
    if (form.get('intent') === 'test') {
      const status = (await caller.connectors.test({ connector: page.connector, id: field('id') })) as { connected: boolean; reason?: string };
      return { tested: { id: field('id'), ...status } };
    }
    await caller.connectors.save({ connector: page.connector, id: field('id'), name: field('name'), siteUrl: field('siteUrl'), username: field('username') || null, credential: field('credential'), webhookSecret: field('webhookSecret') });
    return { notice: `Saved ${field('name')}.` };
  });
}

export default function ConnectorPage() {
  const { page, instances } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>Connectors › {page.title}</h1>
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      {result && 'tested' in result && result.tested ? (
        <p className={result.tested.connected ? 'notice' : 'error'} role="status">
          {result.tested.id}: {result.tested.connected ? 'connected' : `not connected — ${result.tested.reason ?? 'unknown reason'}`}
        </p>
      ) : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <Form method="post">
        <fieldset>
          <legend>Add or change an instance</legend>
          <div className="form-grid">
            <label htmlFor="id">Instance id</label>
            <input id="id" name="id" required pattern="[a-z0-9][a-z0-9-]*" />
            <label htmlFor="name">Name</label>
            <input id="name" name="name" required />
            <label htmlFor="siteUrl">Site URL</label>
            <input id="siteUrl" name="siteUrl" type="url" required />
            {page.needsUsername ? (
              <>
                <label htmlFor="username">Username</label>
                <input id="username" name="username" required />
              </>
            ) : null}
            <label htmlFor="credential">{page.credential}</label>
            <input id="credential" name="credential" type="password" autoComplete="off" placeholder="leave empty to keep the stored one" aria-describedby="credential-hint" />
            <p id="credential-hint" className="hint">A stored credential only stays with the same site: when the site URL moves to another origin, enter it again (the webhook secret is dropped unless entered too).</p>
            {page.needsUsername ? (
              <>
                <label htmlFor="webhookSecret">Webhook secret (optional, as in the plugin)</label>
                <input id="webhookSecret" name="webhookSecret" type="password" autoComplete="off" placeholder="leave empty to keep the stored one" />
              </>
            ) : null}
          </div>
          <button type="submit" name="intent" value="save">
            Save
          </button>
        </fieldset>
      </Form>
      <table aria-label="Instances">
        <tbody>
          {instances.map((instance) => (
            <tr key={instance.id}>
              <td>
                <strong>{instance.name}</strong> <code>{instance.id}</code>
              </td>
              <td>{instance.siteUrl}</td>
              <td>{instance.username ?? ''}</td>
              <td>
                <Form method="post">
                  <input type="hidden" name="id" value={instance.id} />
                  <button type="submit" name="intent" value="test" className="secondary">
                    Test connection
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {instances.length === 0 ? <p>No instances yet.</p> : null}
    </>
  );
}
