import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, ConfirmButton, DataTable, Notice, PageHeader, When } from '~/components/ui/index.ts';
import { FormErrors, replyFor } from '~/forms/index.ts';
import { revokeConnectionForm } from '~/forms/mcp.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'MCP connections' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  return { connections: await caller.mcp.connections.list() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm('connection', form, revokeConnectionForm, async ({ grantId }) => {
    await caller.mcp.connections.revoke({ grantId });
    const name = (await caller.mcp.connections.list()).find((connection) => connection.grantId === grantId)?.clientName ?? grantId;
    return { notice: `Revoked ${name}: its tokens stop working within a second.` };
  });
}

/** A long id (a metadata document's URL) cut to fit the column; the whole of it on hover. */
function ClientId({ id }: { id: string }) {
  return (
    <code title={id} className="block max-w-[14rem] truncate">
      {id}
    </code>
  );
}

export default function Connections() {
  const { connections } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const reply = replyFor(result, 'connection');
  return (
    <>
      <PageHeader title="MCP connections" description="MCP apps an admin allowed on the consent page (OAuth). Each may call the tools it was allowed, as long as its connection is active." />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {reply?.error?.[''] ? <FormErrors id="connection-errors" errors={reply.error['']} /> : null}
      <DataTable
        label="MCP connections"
        columns={['App', 'Client id', 'Redirect URI', 'Tools', 'Consented by', 'Connected', 'Last refreshed', 'Status', '']}
        isEmpty={connections.length === 0}
        empty="No MCP app is connected yet. An app connects when an admin allows it on the consent page it opens."
      >
        {connections.map((c) => (
          <tr key={c.grantId}>
            <td>
              <strong>{c.clientName}</strong>
              {c.clientKind === 'metadata-document' ? <div className="text-xs text-muted">named by its metadata document</div> : null}
            </td>
            <td>
              <ClientId id={c.clientId} />
            </td>
            <td>
              <code className="break-all">{c.redirectUri}</code>
            </td>
            <td>{c.allowedPrimitives.length > 0 ? c.allowedPrimitives.join(', ') : 'none'}</td>
            <td>{c.consentedByEmail}</td>
            <td>
              <When at={c.createdAt} />
            </td>
            <td>{c.lastRefreshedAt ? <When at={c.lastRefreshedAt} /> : '—'}</td>
            <td>
              <Badge tone={c.revoked ? 'danger' : 'success'}>{c.revoked ? 'Revoked' : 'Active'}</Badge>
              {c.revoked && c.revokedReason ? <div className="text-xs text-muted">{c.revokedReason}</div> : null}
            </td>
            <td>
              {c.revoked ? null : (
                <Form method="post">
                  <input type="hidden" name="grantId" value={c.grantId} />
                  <ConfirmButton name="intent" value="revoke" size="sm" variant="danger" title={`Revoke ${c.clientName}?`} description="Its refresh tokens stop working at once, its access tokens within a second. The app must ask for consent again to reconnect." confirmLabel="Revoke">
                    Revoke
                  </ConfirmButton>
                </Form>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
