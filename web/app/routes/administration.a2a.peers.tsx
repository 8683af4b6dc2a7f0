import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect } from 'react';
import { readAdminForm } from '~/auth/form.server.ts';
import { Button, Card, DataTable, Notice, PageHeader, SelectField, TextField } from '~/components/ui/index.ts';
import { registerPeerForm } from '~/forms/a2a.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Remote peers' }];

const FORM_ID = 'register-peer';

export async function loader({ request, context }: LoaderFunctionArgs) {
  return { peers: await (await serverCaller(request, context.services)).a2a.peers.list() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm(FORM_ID, form, registerPeerForm, async (value) => {
    const peer = await caller.a2a.peers.register(value);
    // The card is fetched once now, so a peer whose card points elsewhere is named at once.
    const card = await caller.a2a.peers.card({ id: peer.id }).then((value) => ({ value }), (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
    if ('value' in card) return { notice: `Registered ${peer.name}: ${card.value.skills.length} agent(s) offered, spoken to over A2A ${card.value.protocol}.`, usable: true };
    return { notice: `Registered ${peer.name}, but its AgentCard cannot be used yet: ${card.error}`, usable: false };
  }, { hideFields: ['clientSecret'] });
}

function RegisterPeerCard() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData != null;
  const [form, fields] = useSchemaForm(registerPeerForm, { id: FORM_ID, lastResult: replyFor(result, FORM_ID), defaultValue: { protocol: 'auto' } });
  // A registered peer's fields (its secret above all) do not stay in the form.
  const registered = result && 'notice' in result ? result : null;
  useEffect(() => {
    if (registered) form.reset();
  }, [registered]);
  return (
    <Card title="Register a peer" description="The other instance’s admin registers this one as an A2A client there and gives you its client id and secret.">
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField meta={fields.id} label="Peer id" placeholder="globex" help="Lower-case letters, digits and hyphens; registering an id again replaces that peer." />
          <TextField meta={fields.name} label="Name" />
          <TextField meta={fields.baseUrl} type="url" label="Base URL" placeholder="https://agents.example.com" />
          <TextField meta={fields.clientId} label="Client id" autoComplete="off" />
          <TextField meta={fields.clientSecret} type="password" label="Client secret" autoComplete="off" help="Sealed at rest and never shown again." />
          <SelectField
            meta={fields.protocol}
            label="A2A protocol"
            options={[
              { value: 'auto', label: 'Automatic: 1.0 when its card offers it, else 0.3' },
              { value: '0.3', label: 'Always 0.3' },
            ]}
            help="Automatic reads the peer’s /.well-known/agent-card.json; choose 0.3 for a peer whose 1.0 endpoint misbehaves."
          />
        </div>
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, FORM_ID)} />
        <Button type="submit" busy={busy}>
          Register peer
        </Button>
      </Form>
    </Card>
  );
}

export default function Peers() {
  const { peers } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <PageHeader title="Remote peers" description="Instances this one calls over A2A, with the client credentials their admin issued to us. The secret is sealed at rest and never shown again." />
      {result && 'notice' in result ? <Notice tone={result.usable ? 'success' : 'warning'} role="status">{result.notice}</Notice> : null}
      <div className="space-y-6">
        <RegisterPeerCard />
        <DataTable label="Peers" columns={['Peer', 'Base URL', 'Client id', 'Protocol']} isEmpty={peers.length === 0} empty="No peers yet: register one above with the client id and secret its admin issued to this instance.">
          {peers.map((p) => (
            <tr key={p.id}>
              <td>
                <strong>{p.name}</strong>
                <div className="text-xs text-muted">
                  <code>{p.id}</code>
                </div>
              </td>
              <td>{p.baseUrl}</td>
              <td>
                <code className="[overflow-wrap:anywhere]">{p.clientId}</code>
              </td>
              <td>{p.protocol === '0.3' ? 'A2A 0.3' : 'A2A 1.0 when offered'}</td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
