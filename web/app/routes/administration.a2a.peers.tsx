import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

export const meta: MetaFunction = () => [{ title: 'Remote peers' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  return { peers: await (await serverCaller(request, context.services)).a2a.peers.list() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const field = (name: string) => String(form.get(name) ?? '').trim();
    const peer = await caller.a2a.peers.register({ id: field('id'), name: field('name'), baseUrl: field('baseUrl'), clientId: field('clientId'), clientSecret: field('clientSecret'), protocol: field('protocol') === '0.3' ? '0.3' : 'auto' });
    // The card is fetched once now, so a peer whose card points elsewhere is named at once.
    const card = await caller.a2a.peers.card({ id: peer.id }).then((value) => ({ value }), (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
    if ('value' in card) return { notice: `Registered ${peer.name}: ${card.value.skills.length} agent(s) offered, spoken to over A2A ${card.value.protocol}.` };
    return { notice: `Registered ${peer.name}, but its AgentCard cannot be used yet: ${card.error}` };
  });
}

export default function Peers() {
  const { peers } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>Remote peers</h1>
      <p className="hint">Instances this one calls over A2A, with the client credentials their admin issued to us. The secret is sealed at rest and never shown again.</p>
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <Form method="post">
        <fieldset>
          <legend>Register a peer</legend>
          <div className="form-grid">
            <label htmlFor="id">Peer id</label>
            <input id="id" name="id" required pattern="[a-z0-9][a-z0-9-]*" />
            <label htmlFor="name">Name</label>
            <input id="name" name="name" required />
            <label htmlFor="baseUrl">Base URL</label>
            <input id="baseUrl" name="baseUrl" type="url" required placeholder="https://agents.example.com" />
            <label htmlFor="clientId">Client id</label>
            <input id="clientId" name="clientId" required />
            <label htmlFor="clientSecret">Client secret</label>
            <input id="clientSecret" name="clientSecret" type="password" autoComplete="off" required />
            <label htmlFor="protocol">A2A protocol</label>
            <select id="protocol" name="protocol" defaultValue="auto" aria-describedby="protocol-help">
              <option value="auto">Automatic: 1.0 when its card offers it, else 0.3</option>
              <option value="0.3">Always 0.3</option>
            </select>
            <p id="protocol-help" className="hint">Automatic reads the peer's /.well-known/agent-card.json; choose 0.3 for a peer whose 1.0 endpoint misbehaves.</p>
          </div>
          <button type="submit">Register peer</button>
        </fieldset>
      </Form>
      <table aria-label="Peers">
        <tbody>
          {peers.map((p) => (
            <tr key={p.id}>
              <td>
                <strong>{p.name}</strong> <code>{p.id}</code>
              </td>
              <td>{p.baseUrl}</td>
              <td>
                <code>{p.clientId}</code>
              </td>
              <td>{p.protocol === '0.3' ? 'A2A 0.3' : 'A2A 1.0 when offered'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
