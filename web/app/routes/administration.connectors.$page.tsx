import { CMS_NAMES } from '~/admin-sections.ts';
import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect } from 'react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Button, ButtonLink, Card, ConfirmButton, DataTable, Notice, PageHeader, TextField } from '~/components/ui/index.ts';
import { removeInstanceForm, SECRET_FIELDS, saveInstanceForm, saveInstanceWithUsernameForm, testInstanceForm } from '~/forms/connectors.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

/** One page per connector, `/administration/connectors/<cms>-widget`: adding a CMS adds no route. */
const PAGES = {
  'cms-a-widget': { connector: 'cms_a', title: CMS_NAMES['cms-a-widget'], credential: 'MCP key of the tools module', needsUsername: false },
  'cms-b-widget': { connector: 'cms_b', title: CMS_NAMES['cms-b-widget'], credential: 'Application password', needsUsername: true },
} as const;
type Page = keyof typeof PAGES;

function pageOf(param: string | undefined) {
  if (!param || !Object.hasOwn(PAGES, param)) throw new Response('No such connector', { status: 404 });
  return PAGES[param as Page];
}

export const meta: MetaFunction = () => [{ title: 'Connector' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const page = pageOf(params.page);
  const instances = await (await serverCaller(request, context.services)).connectors.instances({ connector: page.connector });
  // `?edit=<id>` fills the form with that instance's fields (never its secrets) to change it.
  const editing = instances.find((instance) => instance.id === new URL(request.url).searchParams.get('edit')) ?? null;
  return { page, instances, editing };
}

const SAVE_FORM = 'save-instance';
/** Refusals of "Test connection" (a button on a row, not a form of its own) show above the page. */
const INSTANCE_FORM = 'instance';

const actionForms = {
  plain: z.discriminatedUnion('intent', [saveInstanceForm, testInstanceForm, removeInstanceForm]),
  withUsername: z.discriminatedUnion('intent', [saveInstanceWithUsernameForm, testInstanceForm, removeInstanceForm]),
};

export async function action({ request, context, params }: ActionFunctionArgs) {
  const page = pageOf(params.page);
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  const formId = form.get('intent') === 'save' ? SAVE_FORM : INSTANCE_FORM;
  return submitForm(formId, form, page.needsUsername ? actionForms.withUsername : actionForms.plain, async (value) => {
    if (value.intent === 'test') {
      const status = (await caller.connectors.test({ connector: page.connector, id: value.id })) as { connected: boolean; reason?: string };
      return { tested: { id: value.id, connected: status.connected, reason: status.reason ?? null } };
    }
    if (value.intent === 'remove') {
      await caller.connectors.remove({ connector: page.connector, id: value.id });
      return { notice: `Removed ${value.id} with its credentials and widget key: the widget on that site stops working.` };
    }
    await caller.connectors.save({ connector: page.connector, id: value.id, name: value.name, siteUrl: value.siteUrl, username: value.username || null, credential: value.credential, webhookSecret: value.webhookSecret });
    return { notice: `Saved ${value.name}.` };
  }, { hideFields: SECRET_FIELDS });
}

function SaveInstanceCard({ page }: { page: (typeof PAGES)[Page] }) {
  const { editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'save';
  const [form, fields] = useSchemaForm(page.needsUsername ? saveInstanceWithUsernameForm : saveInstanceForm, {
    id: SAVE_FORM,
    lastResult: replyFor(result, SAVE_FORM),
    defaultValue: editing ? { id: editing.id, name: editing.name, siteUrl: editing.siteUrl, username: editing.username ?? '' } : undefined,
  });
  // A saved instance's fields (its credential above all) do not stay in the form.
  const saved = result && 'notice' in result ? result : null;
  useEffect(() => {
    if (saved) form.reset();
  }, [saved]);
  const keep = 'leave empty to keep the stored one';
  return (
    <Card
      title={editing ? `Change ${editing.name}` : 'Add or change an instance'}
      description={editing ? 'Its id stays. Leave the secrets empty to keep the sealed ones.' : 'Saving an existing instance id changes that instance. Credentials are write-only: sealed when saved, never shown again.'}
    >
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField meta={fields.id} label="Instance id" placeholder="newsroom" help="Lower-case letters, digits and hyphens." readOnly={!!editing} />
          <TextField meta={fields.name} label="Name" />
          <TextField meta={fields.siteUrl} type="url" label="Site URL" placeholder="https://cms.example.com" />
          {page.needsUsername ? <TextField meta={fields.username} label="Username" autoComplete="off" /> : null}
          <TextField
            meta={fields.credential}
            type="password"
            label={page.credential}
            autoComplete="off"
            placeholder={keep}
            help="A stored credential only stays with the same site: when the site URL moves to another origin, enter it again (the webhook secret is dropped unless entered too)."
          />
          {page.needsUsername ? <TextField meta={fields.webhookSecret} type="password" label="Webhook secret (optional, as in the plugin)" autoComplete="off" placeholder={keep} /> : null}
        </div>
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, SAVE_FORM)} />
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" name="intent" value="save" busy={busy}>
            Save
          </Button>
          {editing ? <Link to=".">Cancel</Link> : null}
        </div>
      </Form>
    </Card>
  );
}

export default function ConnectorPage() {
  const { page, instances, editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const testing = useNavigation().formData;
  const instanceReply = replyFor(result, INSTANCE_FORM);
  const refused = instanceReply?.error ? Object.values(instanceReply.error).flatMap((errors) => errors ?? []) : [];
  return (
    <>
      <PageHeader
        title={`${page.title} sites`}
        description="The sites this connector’s primitives and widget talk to, each with its own credential. Removing an instance deletes its credentials, its widget key and settings and the Undo of its widget edits; runs already under way fail at their next call to that site."
      />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {result && 'tested' in result && result.tested ? (
        <Notice tone={result.tested.connected ? 'success' : 'warning'} role="status">
          {result.tested.id}: {result.tested.connected ? 'connected' : `not connected — ${result.tested.reason ?? 'unknown reason'}`}
        </Notice>
      ) : null}
      <FormErrors id="instance-errors" errors={refused.length ? refused : undefined} fix={fixFrom(result, INSTANCE_FORM)} />
      <div className="space-y-6">
        {/* Mounted anew for each instance changed: the form's initial values are its. */}
        <SaveInstanceCard key={editing?.id ?? 'new'} page={page} />
        <DataTable
          label="Instances"
          columns={page.needsUsername ? ['Instance', 'Site URL', 'Username', ''] : ['Instance', 'Site URL', '']}
          isEmpty={instances.length === 0}
          empty="No instances yet: add one above with its site URL and credential."
        >
          {instances.map((instance) => (
            <tr key={instance.id}>
              <td>
                <strong>{instance.name}</strong>
                <div className="text-xs text-muted">
                  <code>{instance.id}</code>
                </div>
              </td>
              <td>{instance.siteUrl}</td>
              {page.needsUsername ? <td>{instance.username ?? '—'}</td> : null}
              <td>
                <Form method="post" className="flex flex-wrap gap-2">
                  <input type="hidden" name="id" value={instance.id} />
                  <Button type="submit" name="intent" value="test" variant="secondary" size="sm" busy={testing?.get('intent') === 'test' && testing.get('id') === instance.id}>
                    Test connection
                  </Button>
                  <ButtonLink to={`?edit=${encodeURIComponent(instance.id)}`} variant="secondary" size="sm" aria-label={`Change ${instance.name}`}>
                    Change
                  </ButtonLink>
                  <ConfirmButton
                    name="intent"
                    value="remove"
                    size="sm"
                    variant="danger"
                    title={`Remove ${instance.name}?`}
                    description="Its sealed credentials, widget key and widget settings are deleted: the widget on that site stops working, and runs under way fail at their next call to it. This cannot be undone."
                    confirmLabel="Remove"
                  >
                    Remove
                  </ConfirmButton>
                </Form>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
