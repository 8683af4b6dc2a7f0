import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, Card, Checkbox, ConfirmButton, DataTable, Notice, PageHeader, SelectField, ShownOnce, TextField } from '~/components/ui/index.ts';
import { clientActionForm, defaultAgentForm, registerClientForm } from '~/forms/a2a.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'A2A clients' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  return { a2aOn: (await context.services.flags()).a2aHttpEnabled, clients: await caller.a2a.clients.list(), defaultAgent: await caller.a2a.defaultAgent.get(), tokenEndpoint: (await context.services.agentCard()).authentication.tokenEndpoint };
}

const actionForm = z.discriminatedUnion('intent', [registerClientForm, defaultAgentForm, clientActionForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  const intent = String(form.get('intent') ?? '');
  return submitForm(intent === 'register' || intent === 'default-agent' ? intent : 'client', form, actionForm, async (value) => {
    switch (value.intent) {
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

function RegisterClientCard() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'register';
  const [form, fields] = useSchemaForm(registerClientForm, { id: 'register', lastResult: replyFor(result, 'register'), defaultValue: { allowedAgents: '*', permissions: [...['list', 'read', 'execute']] } });
  return (
    <Card title="Register a client" description="Another instance, or any A2A client, that may call this one.">
      <Form method="post" {...getFormProps(form)} className="space-y-4">
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
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'register')} />
        <Button type="submit" name="intent" value="register" busy={busy}>
          Register
        </Button>
      </Form>
    </Card>
  );
}

export default function Clients() {
  const { a2aOn, clients, defaultAgent, tokenEndpoint } = useLoaderData<typeof loader>();
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
        <RegisterClientCard />
        <DataTable label="Clients" columns={['Client', 'Agents', 'Permissions', 'Primitives', 'State', '']} isEmpty={clients.length === 0} empty="No clients yet: register one above, then give its id and secret to the other instance.">
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
