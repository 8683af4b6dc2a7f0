import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect } from 'react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, ButtonLink, Card, ConfirmButton, DataTable, Notice, PageHeader, SelectField, TextField, When } from '~/components/ui/index.ts';
import { editServerForm, refreshServerForm, registerServerForm, removeServerForm } from '~/forms/mcp.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'MCP servers' }];

const FORM_ID = 'register-mcp-server';

export async function loader({ request, context }: LoaderFunctionArgs) {
  const servers = await (await serverCaller(request, context.services)).mcp.servers.list();
  const editId = new URL(request.url).searchParams.get('edit');
  return { servers, editing: servers.find((server) => server.id === editId) ?? null };
}

const actionForm = z.discriminatedUnion('intent', [registerServerForm, editServerForm, refreshServerForm, removeServerForm]);

/** The credentials the form gave, as the procedure takes them (empty ones are kept as sealed). */
function authOf(value: z.infer<typeof registerServerForm> | z.infer<typeof editServerForm>) {
  if (value.auth === 'bearer') return { kind: 'bearer' as const, ...(value.token ? { token: value.token } : {}) };
  if (value.auth === 'oauth') return { kind: 'oauth' as const, clientId: value.clientId ?? '', ...(value.clientSecret ? { clientSecret: value.clientSecret } : {}), ...(value.issuer ? { issuer: value.issuer } : {}) };
  return { kind: 'none' as const };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm(
    FORM_ID,
    form,
    actionForm,
    async (value) => {
      if (value.intent === 'remove') {
        await caller.mcp.servers.remove({ id: value.id });
        return { notice: `Removed the MCP server ${value.id}: agents can no longer call its tools.`, usable: true };
      }
      const server = value.intent === 'refresh' ? await caller.mcp.servers.refresh({ id: value.id }) : await caller.mcp.servers.register({ id: value.id, name: value.name, url: value.url, auth: authOf(value), agents: value.agents });
      if (server.lastError) return { notice: `${server.name} is ${value.intent === 'refresh' ? 'kept' : 'saved'}, but it did not list its tools: ${server.lastError.message}`, usable: false };
      return { notice: `${server.name} lists ${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}: ${server.tools.map((tool) => tool.name).join(', ') || 'none'}.`, usable: true };
    },
    { hideFields: ['token', 'clientSecret'] },
  );
}

function ServerFormCard() {
  const { editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData != null;
  const schema = editing ? editServerForm : registerServerForm;
  const [form, fields] = useSchemaForm(schema, {
    id: FORM_ID,
    lastResult: replyFor(result, FORM_ID),
    defaultValue: editing
      ? { id: editing.id, name: editing.name, url: editing.url, auth: editing.auth, clientId: editing.clientId ?? '', issuer: editing.issuer ?? '', agents: editing.agents.join(', ') }
      : { auth: 'none', agents: '*' },
  });
  const saved = result && 'notice' in result ? result : null;
  useEffect(() => {
    if (saved && !editing) form.reset();
  }, [saved]);
  return (
    <Card
      title={editing ? `Change ${editing.name}` : 'Register an MCP server'}
      description={editing ? 'Leave the token or secret empty to keep the one sealed now.' : 'A server speaking MCP over Streamable HTTP. Its tools become tools agents may name in their flows (mcp:<server id>/<tool>).'}
    >
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <input type="hidden" name="intent" value={editing ? 'edit' : 'register'} />
        <div className="grid gap-4 sm:grid-cols-2">
          {editing ? <input type="hidden" name="id" value={editing.id} /> : <TextField meta={fields.id} label="Server id" placeholder="docs" help="Lower-case letters, digits and hyphens: flows name its tools mcp:<id>/<tool>." />}
          <TextField meta={fields.name} label="Name" />
          <TextField meta={fields.url} type="url" label="MCP endpoint URL" placeholder="https://tools.example.com/mcp" className="sm:col-span-2" />
          <SelectField
            meta={fields.auth}
            label="Authentication"
            options={[
              { value: 'none', label: 'None' },
              { value: 'bearer', label: 'Bearer token' },
              { value: 'oauth', label: 'OAuth client credentials' },
            ]}
          />
          <TextField meta={fields.token} type="password" label="Bearer token" autoComplete="off" help={editing ? 'Empty: keep the current token.' : 'For bearer authentication; sealed at rest and never shown again.'} />
          <TextField meta={fields.clientId} label="OAuth client id" autoComplete="off" />
          <TextField meta={fields.clientSecret} type="password" label="OAuth client secret" autoComplete="off" help={editing ? 'Empty: keep the current secret.' : 'Sealed at rest and never shown again.'} />
          <TextField meta={fields.issuer} type="url" label="OAuth issuer" placeholder="https://auth.example.com" help="The authorization server the credentials belong to: they are presented to it alone." />
          <TextField meta={fields.agents} label="Agents that may use it" placeholder="@acme/researcher, @acme/site-editor" help="* for every agent of this instance." />
        </div>
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, FORM_ID)} />
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" busy={busy}>
            {editing ? 'Save and list its tools' : 'Register and list its tools'}
          </Button>
          {editing ? <Link to="/administration/mcp/servers">Cancel</Link> : null}
        </div>
      </Form>
    </Card>
  );
}

type ServerRow = ReturnType<typeof useLoaderData<typeof loader>>['servers'][number];

/** Its tools, each marked as a human would judge it: read-only calls run, others wait for approval unless a flow says otherwise. */
function Tools({ server }: { server: ServerRow }) {
  if (server.tools.length === 0) return <span className="text-muted">None listed</span>;
  return (
    <ul className="space-y-1">
      {server.tools.map((tool) => (
        <li key={tool.name}>
          <code>{tool.name}</code> {tool.readOnlyHint ? <Badge tone="success">read-only</Badge> : <Badge tone={tool.destructiveHint ? 'danger' : 'warning'}>{tool.destructiveHint ? 'destructive' : 'writes'}</Badge>}
        </li>
      ))}
    </ul>
  );
}

function Status({ server }: { server: ServerRow }) {
  if (server.lastError) {
    return (
      <div>
        <Badge tone="danger">Not listing</Badge>
        <div className="mt-1 text-xs [overflow-wrap:anywhere]">
          {server.lastError.message} (<When at={server.lastError.at} />)
        </div>
      </div>
    );
  }
  return server.listedAt ? (
    <div className="text-xs text-muted">
      Listed <When at={server.listedAt} />
    </div>
  ) : (
    <span className="text-muted">Not asked yet</span>
  );
}

const AUTH_LABEL = { none: 'None', bearer: 'Bearer token', oauth: 'OAuth client credentials' } as const;

export default function McpServers() {
  const { servers, editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <PageHeader title="MCP servers" description="Servers whose tools agents may call. A call to a tool that is not read-only waits for a person's approval unless the agent's flow says otherwise." />
      {result && 'notice' in result ? (
        <Notice tone={result.usable ? 'success' : 'warning'} role="status">
          {result.notice}
        </Notice>
      ) : null}
      <div className="space-y-6">
        <DataTable label="MCP servers" columns={['Server', 'URL', 'Authentication', 'Agents', 'Tools', 'Status', <span key="actions" className="sr-only">Actions</span>]} isEmpty={servers.length === 0} empty="No MCP server yet: register one below, then name its tools in an agent's flow.">
          {servers.map((s) => (
            <tr key={s.id}>
              <td>
                <strong>{s.name}</strong>
                <div className="text-xs text-muted">
                  <code>{s.id}</code>
                </div>
              </td>
              <td className="[overflow-wrap:anywhere]">{s.url}</td>
              <td>{AUTH_LABEL[s.auth]}</td>
              <td>{s.agents.length ? s.agents.map((agent) => (agent === '*' ? 'every agent' : agent)).join(', ') : 'none'}</td>
              <td>
                <Tools server={s} />
              </td>
              <td>
                <Status server={s} />
              </td>
              <td>
                <div className="flex flex-wrap items-center gap-2">
                  <Form method="post">
                    <input type="hidden" name="id" value={s.id} />
                    <Button type="submit" name="intent" value="refresh" size="sm" variant="secondary" aria-label={`List the tools of ${s.name} again`}>
                      Refresh
                    </Button>
                  </Form>
                  <ButtonLink to={`?edit=${encodeURIComponent(s.id)}`} variant="secondary" size="sm" aria-label={`Change ${s.name}`}>
                    Change
                  </ButtonLink>
                  <Form method="post">
                    <input type="hidden" name="id" value={s.id} />
                    <ConfirmButton name="intent" value="remove" size="sm" variant="danger" aria-label={`Remove ${s.name}`} title={`Remove ${s.name}?`} description="Its sealed credentials are deleted; agents whose flows name its tools fail at their next step until it is registered again." confirmLabel="Remove">
                      Remove
                    </ConfirmButton>
                  </Form>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
        {/* Mounted anew for each server changed: the form's initial values are its. */}
        <ServerFormCard key={editing?.id ?? 'new'} />
      </div>
    </>
  );
}
