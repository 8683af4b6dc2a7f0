import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect } from 'react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, ButtonLink, byRevoked, Card, Checkbox, ConfirmButton, DataTable, Notice, PageHeader, RevokedFilter, revokedShowOf, SelectField, ShownOnce, TextField } from '~/components/ui/index.ts';
import { clientActionForm, defaultAgentForm, editClientForm, registerClientForm } from '~/forms/a2a.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'A2A clients' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const query = new URL(request.url).searchParams;
  const show = revokedShowOf(request);
  const all = await caller.a2a.clients.list();
  const editing = all.find((client) => client.clientId === query.get('edit') && !client.revoked) ?? null;
  const { shown: clients, revokedCount } = byRevoked(all, show, (client) => client.revoked);
  return { a2aOn: (await context.services.flags()).a2aHttpEnabled, clients, show, revokedCount, editing, defaultAgent: await caller.a2a.defaultAgent.get(), tokenEndpoint: (await context.services.agentCard()).authentication.tokenEndpoint };
}

const actionForm = z.discriminatedUnion('intent', [registerClientForm, editClientForm, defaultAgentForm, clientActionForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  const intent = String(form.get('intent') ?? '');
  return submitForm(intent === 'register' || intent === 'default-agent' || intent === 'edit' ? intent : 'client', form, actionForm, async (value) => {
    switch (value.intent) {
      case 'edit': {
        const client = await caller.a2a.clients.setGrants({ clientId: value.clientId, name: value.name, allowedAgents: value.allowedAgents, permissions: value.permissions, allowedPrimitives: value.allowedPrimitives });
        return { notice: `Saved ${client.name}: its next call is checked against these grants.` };
      }
      case 'register': {
        const { client, clientSecret } = await caller.a2a.clients.register({ name: value.name, allowedAgents: value.allowedAgents, permissions: value.permissions, allowedPrimitives: value.allowedPrimitives });
        return { secret: { clientId: client.clientId, clientSecret } };
      }
      case 'default-agent': {
        const agent = value.agent || null;
        await caller.a2a.defaultAgent.set({ agent });
        return { notice: agent ? `Messages that name no agent now go to ${agent}.` : 'No default agent: a message must name its agent unless only one is published.' };
      }
      case 'rotate':
        return { secret: { clientId: value.clientId, clientSecret: (await caller.a2a.clients.rotate({ clientId: value.clientId })).clientSecret } };
      case 'revoke':
        await caller.a2a.clients.revoke({ clientId: value.clientId });
        return { notice: `Revoked ${value.clientId}: its tokens stop working at once.` };
    }
  });
}

function DefaultAgentCard({ defaultAgent }: { defaultAgent: { agent: string | null; agents: string[] } }) {
  const result = useActionData<typeof action>();
  const [form, fields] = useSchemaForm(defaultAgentForm, { id: 'default-agent', lastResult: replyFor(result, 'default-agent'), defaultValue: { agent: defaultAgent.agent ?? '' } });
  const none = defaultAgent.agents.length === 1 ? `None (the only one: ${defaultAgent.agents[0]})` : 'None (a message must name its agent)';
  return (
    <Card
      title="Default agent"
      description={
        <>
          A client that names no agent (no <code>metadata.skillId</code>, as generic A2A clients send) reaches this one at <code>/api/a2a</code>. Each agent also has its own endpoint and card at <code>/a2a/&lt;vendor&gt;/&lt;slug&gt;</code>.
        </>
      }
    >
      <Form method="post" {...getFormProps(form)} className="flex flex-wrap items-end gap-3">
        <SelectField meta={fields.agent} label="Agent" className="w-full sm:w-96" options={[{ value: '', label: none }, ...defaultAgent.agents.map((agent) => ({ value: agent, label: agent }))]} />
        <Button type="submit" name="intent" value="default-agent">
          Save default agent
        </Button>
        <FormErrors id={form.errorId} errors={form.errors} />
      </Form>
    </Card>
  );
}

function ClientFormCard() {
  const { editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const intent = editing ? 'edit' : 'register';
  const busy = useNavigation().formData?.get('intent') === intent;
  const [form, fields] = useSchemaForm(editing ? editClientForm : registerClientForm, {
    id: intent,
    lastResult: replyFor(result, intent),
    defaultValue: editing
      ? { name: editing.name, allowedAgents: editing.allowedAgents.join(', '), allowedPrimitives: editing.allowedPrimitives.join(', '), permissions: editing.permissions }
      : { allowedAgents: '*', permissions: [...['list', 'read', 'execute']] },
  });
  // A registered client's fields do not stay in the form (its secret is shown once, above).
  const registered = result && 'secret' in result && !editing ? result : null;
  useEffect(() => {
    if (registered) form.reset();
  }, [registered]);
  return (
    <Card title={editing ? `Change ${editing.name}` : 'Register a client'} description={editing ? 'Its id and secret stay; its next call is checked against the new grants.' : 'Another instance, or any A2A client, that may call this one.'}>
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        {editing ? <input type="hidden" name="clientId" value={editing.clientId} /> : null}
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField meta={fields.name} label="Name" help="Shown in the runs list and the audit log." />
          <TextField meta={fields.allowedAgents} label="Allowed agents" placeholder="@scope/agent, … or *" help="Package names separated by commas, or * for every agent." />
          <TextField meta={fields.allowedPrimitives} label="MCP primitives" placeholder="cms_b, service_extensions_search, … or *" help="None by default." />
          <fieldset className="min-w-0">
            <legend className="mb-1 text-sm font-medium">Permissions</legend>
            <div className="flex flex-wrap gap-4 pt-1">
              {(['list', 'read', 'execute'] as const).map((permission) => (
                <Checkbox key={permission} name={fields.permissions.name} value={permission} label={permission} defaultChecked={(fields.permissions.initialValue as string[] | undefined)?.includes(permission) ?? true} />
              ))}
            </div>
            {fields.permissions.errors ? <p className="mt-1 text-sm text-danger">{fields.permissions.errors.join(' ')}</p> : null}
          </fieldset>
        </div>
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, intent)} />
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" name="intent" value={intent} busy={busy}>
            {editing ? 'Save changes' : 'Register'}
          </Button>
          {editing ? <Link to="/administration/a2a/clients">Cancel</Link> : null}
        </div>
      </Form>
    </Card>
  );
}

export default function Clients() {
  const { a2aOn, clients, defaultAgent, tokenEndpoint, show, revokedCount, editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const clientReply = replyFor(result, 'client');
  return (
    <>
      <PageHeader
        title="A2A clients"
        description={
          <>
            Other instances authenticate with OAuth 2.0 client credentials at <code>{tokenEndpoint}</code>. Grants decide which agents a client may list, read and execute.
          </>
        }
      />
      {a2aOn ? null : (
        <Notice tone="warning" role="note">
          A2A over HTTP is off: clients registered here get 404 until it is turned on. <Link to="/administration#switches">Turn it on</Link>
        </Notice>
      )}
      {result && 'secret' in result && result.secret ? (
        <ShownOnce value={result.secret.clientSecret} what="Secret" testId="client-secret">
          Client <code>{result.secret.clientId}</code> secret (shown once, copy it now):
        </ShownOnce>
      ) : null}
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {clientReply?.error?.[''] ? <FormErrors id="client-errors" errors={clientReply.error['']} /> : null}
      <div className="space-y-6">
        <DefaultAgentCard defaultAgent={defaultAgent} />
        {/* Mounted anew for each client changed: the form's initial values are its. */}
        <ClientFormCard key={editing?.clientId ?? 'new'} />
        <RevokedFilter id="clients-show" label="Filter clients" show={show} revokedCount={revokedCount} options={{ active: 'Active clients', revoked: 'Revoked clients', all: 'All clients' }} />
        <DataTable label="Clients" columns={['Client', 'Agents', 'Permissions', 'Primitives', 'State', '']} isEmpty={clients.length === 0} empty={show === 'active' && revokedCount === 0 ? 'No clients yet: register one above, then give its id and secret to the other instance.' : `No ${show === 'all' ? '' : `${show} `}clients.`}>
          {clients.map((c) => (
            <tr key={c.clientId}>
              <td>
                <strong>{c.name}</strong>
                <div className="text-xs text-muted">
                  <code>{c.clientId}</code>
                </div>
              </td>
              <td>{c.allowedAgents.join(', ') || '—'}</td>
              <td>{c.permissions.join(', ') || '—'}</td>
              <td>{c.allowedPrimitives.join(', ') || '—'}</td>
              <td>
                <Badge tone={c.revoked ? 'danger' : 'success'}>{c.revoked ? 'revoked' : 'active'}</Badge>
              </td>
              <td>
                {c.revoked ? null : (
                  <Form method="post" className="flex flex-wrap gap-2">
                    <input type="hidden" name="clientId" value={c.clientId} />
                    <ButtonLink to={`?edit=${encodeURIComponent(c.clientId)}`} variant="secondary" size="sm" aria-label={`Change ${c.name}`}>
                      Change
                    </ButtonLink>
                    <ConfirmButton name="intent" value="rotate" size="sm" title={`Rotate the secret of ${c.name}?`} description="A new secret is issued and shown once; the old one stops working at once." confirmLabel="Rotate secret">
                      Rotate secret
                    </ConfirmButton>
                    <ConfirmButton name="intent" value="revoke" size="sm" variant="danger" title={`Revoke ${c.name}?`} description="Its tokens stop working at once. This cannot be undone." confirmLabel="Revoke">
                      Revoke
                    </ConfirmButton>
                  </Form>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
