import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { A2A_PERMISSIONS } from '@service/core/db';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

export const meta: MetaFunction = () => [{ title: 'A2A clients' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  return { a2aOn: (await context.services.flags()).a2aHttpEnabled, clients: await caller.a2a.clients.list(), defaultAgent: await caller.a2a.defaultAgent.get(), tokenEndpoint: (await context.services.agentCard()).authentication.tokenEndpoint, permissions: [...A2A_PERMISSIONS] };
}

const agentsOf = (form: FormData) => String(form.get('allowedAgents') ?? '').split(/[\s,]+/).filter(Boolean);
const permissionsOf = (form: FormData) => A2A_PERMISSIONS.filter((p) => form.get(`permission.${p}`) === 'on');

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const clientId = String(form.get('clientId') ?? '');
    switch (form.get('intent')) {
      case 'register': {
        const { client, clientSecret } = await caller.a2a.clients.register({
          name: String(form.get('name') ?? ''),
          allowedAgents: agentsOf(form),
          permissions: permissionsOf(form),
          allowedPrimitives: String(form.get('allowedPrimitives') ?? '').split(/[\s,]+/).filter(Boolean),
        });
        return { secret: { clientId: client.clientId, clientSecret } };
      }
      case 'rotate':
        return { secret: { clientId, clientSecret: (await caller.a2a.clients.rotate({ clientId })).clientSecret } };
      case 'default-agent': {
        const agent = String(form.get('agent') ?? '') || null;
        await caller.a2a.defaultAgent.set({ agent });
        return { notice: agent ? `Messages that name no agent now go to ${agent}.` : 'No default agent: a message must name its agent unless only one is published.' };
      }
      case 'revoke':
        await caller.a2a.clients.revoke({ clientId });
        return { notice: `Revoked ${clientId}: its tokens stop working at once.` };
      default:
        return { error: 'Unknown action', details: null };
    }
  });
}

export default function Clients() {
  const { a2aOn, clients, defaultAgent, tokenEndpoint, permissions } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>A2A clients</h1>
      {a2aOn ? null : (
        <p className="notice" role="note">
          A2A over HTTP is off: clients registered here get 404 until it is turned on. <a href="/administration#switches">Turn it on</a>
        </p>
      )}
      <p className="hint">
        Other instances authenticate with OAuth 2.0 client credentials at <code>{tokenEndpoint}</code>. Grants decide which agents a client may list, read and execute.
      </p>
      {result && 'secret' in result && result.secret ? (
        <div className="notice" role="status">
          Client <code>{result.secret.clientId}</code> secret (shown once, copy it now): <code data-testid="client-secret">{result.secret.clientSecret}</code>
        </div>
      ) : null}
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <Form method="post">
        <fieldset>
          <legend>Default agent</legend>
          <p className="hint">
            A client that names no agent (no <code>metadata.skillId</code>, as generic A2A clients send) reaches this one at <code>/api/a2a</code>. Each agent also has its own endpoint and card at{' '}
            <code>/a2a/&lt;vendor&gt;/&lt;slug&gt;</code>.
          </p>
          <div className="form-grid">
            <label htmlFor="agent">Agent</label>
            <select id="agent" name="agent" defaultValue={defaultAgent.agent ?? ''}>
              <option value="">{defaultAgent.agents.length === 1 ? `None (the only one: ${defaultAgent.agents[0]})` : 'None (a message must name its agent)'}</option>
              {defaultAgent.agents.map((agent) => (
                <option key={agent} value={agent}>
                  {agent}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" name="intent" value="default-agent">
            Save default agent
          </button>
        </fieldset>
      </Form>
      <Form method="post">
        <fieldset>
          <legend>Register a client</legend>
          <div className="form-grid">
            <label htmlFor="name">Name</label>
            <input id="name" name="name" required />
            <label htmlFor="allowedAgents">Allowed agents</label>
            <input id="allowedAgents" name="allowedAgents" placeholder="@scope/agent, … or *" defaultValue="*" />
            <label htmlFor="allowedPrimitives">MCP primitives</label>
            <input id="allowedPrimitives" name="allowedPrimitives" placeholder="cms_b, service_extensions_search, … or * (none by default)" />
            <span>Permissions</span>
            <span>
              {permissions.map((p) => (
                <label key={p} className="hint">
                  <input type="checkbox" name={`permission.${p}`} defaultChecked /> {p}{' '}
                </label>
              ))}
            </span>
          </div>
          <button type="submit" name="intent" value="register">
            Register
          </button>
        </fieldset>
      </Form>
      <table aria-label="Clients">
        <thead>
          <tr>
            <th>Client</th>
            <th>Agents</th>
            <th>Permissions</th>
            <th>Primitives</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {clients.map((c) => (
            <tr key={c.clientId}>
              <td>
                <strong>{c.name}</strong>
                <div className="hint">
                  <code>{c.clientId}</code>
                </div>
              </td>
              <td>{c.allowedAgents.join(', ') || '—'}</td>
              <td>{c.permissions.join(', ') || '—'}</td>
              <td>{c.allowedPrimitives.join(', ') || '—'}</td>
              <td>{c.revoked ? 'revoked' : 'active'}</td>
              <td>
                {c.revoked ? null : (
                  <Form method="post" className="row-actions">
                    <input type="hidden" name="clientId" value={c.clientId} />
                    <button type="submit" name="intent" value="rotate" className="secondary">
                      Rotate secret
                    </button>
                    <button type="submit" name="intent" value="revoke" className="secondary" onClick={(e) => !window.confirm(`Revoke ${c.name}?`) && e.preventDefault()}>
                      Revoke
                    </button>
                  </Form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
