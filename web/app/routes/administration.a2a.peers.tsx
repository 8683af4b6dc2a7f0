import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect } from 'react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, ButtonLink, Card, ConfirmButton, DataTable, Name, Notice, PageHeader, SelectField, TextField, When } from '~/components/ui/index.ts';
import { editPeerForm, registerPeerForm, removePeerForm } from '~/forms/a2a.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Remote peers' }];

const FORM_ID = 'register-peer';

export async function loader({ request, context }: LoaderFunctionArgs) {
  const peers = await (await serverCaller(request, context.services)).a2a.peers.list();
  const editId = new URL(request.url).searchParams.get('edit');
  return { peers, editing: peers.find((peer) => peer.id === editId) ?? null };
}

const actionForm = z.discriminatedUnion('intent', [registerPeerForm, editPeerForm, removePeerForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm(FORM_ID, form, actionForm, async (value) => {
    if (value.intent === 'remove') {
      await caller.a2a.peers.remove({ id: value.id });
      return { notice: `Removed peer ${value.id}.`, usable: true };
    }
    const { intent, ...input } = value;
    const peer = await caller.a2a.peers.register(input);
    const done = intent === 'edit' ? 'Saved' : 'Registered';
    // The card is fetched once now, so a peer whose card points elsewhere is named at once.
    const card = await caller.a2a.peers.card({ id: peer.id }).then((value) => ({ value }), (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
    if ('value' in card) return { notice: `${done} ${peer.name}: ${card.value.skills.length} agent(s) offered, spoken to over A2A ${card.value.protocol}.`, usable: true };
    return { notice: `${done} ${peer.name}, but its AgentCard cannot be used yet: ${card.error}`, usable: false };
  }, { hideFields: ['clientSecret'] });
}

function PeerFormCard() {
  const { editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData != null;
  const schema = editing ? editPeerForm : registerPeerForm;
  const [form, fields] = useSchemaForm(schema, {
    id: FORM_ID,
    lastResult: replyFor(result, FORM_ID),
    defaultValue: editing ? { id: editing.id, name: editing.name, baseUrl: editing.baseUrl, clientId: editing.clientId, protocol: editing.protocol } : { protocol: 'auto' },
  });
  // A registered peer's fields (its secret above all) do not stay in the form.
  const registered = result && 'notice' in result ? result : null;
  useEffect(() => {
    if (registered && !editing) form.reset();
  }, [registered]);
  return (
    <Card
      title={editing ? `Change ${editing.name}` : 'Register a peer'}
      description={editing ? 'Leave the secret empty to keep the one sealed now.' : 'The other instance’s admin registers this one as an A2A client there and gives you its client id and secret.'}
    >
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <input type="hidden" name="intent" value={editing ? 'edit' : 'register'} />
        <div className="grid gap-4 sm:grid-cols-2">
          {editing ? <input type="hidden" name="id" value={editing.id} /> : <TextField meta={fields.id} label="Peer id" placeholder="globex" help="Lower-case letters, digits and hyphens." />}
          <TextField meta={fields.name} label="Name" />
          <TextField meta={fields.baseUrl} type="url" label="Base URL" placeholder="https://agents.example.com" />
          <TextField meta={fields.clientId} label="Client id" autoComplete="off" />
          <TextField meta={fields.clientSecret} type="password" label="Client secret" autoComplete="off" help={editing ? 'Empty: keep the current secret.' : 'Sealed at rest and never shown again.'} />
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
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" busy={busy}>
            {editing ? 'Save changes' : 'Register peer'}
          </Button>
          {editing ? <Link to="/administration/a2a/peers">Cancel</Link> : null}
        </div>
      </Form>
    </Card>
  );
}

/** When a call to the peer last got an answer, or why the last one failed. */
function PeerStatus({ peer }: { peer: { lastContactAt: string | null; lastError: { at: string; message: string } | null } }) {
  if (peer.lastError) {
    return (
      <div>
        <Badge tone="danger">Failing</Badge>
        <div className="mt-1 text-xs [overflow-wrap:anywhere]">
          {peer.lastError.message} (<When at={peer.lastError.at} />)
        </div>
      </div>
    );
  }
  if (peer.lastContactAt) {
    return (
      <div>
        <Badge tone="success">Answering</Badge>
        <div className="mt-1 text-xs text-muted">
          Last answer <When at={peer.lastContactAt} />
        </div>
      </div>
    );
  }
  return <span className="text-muted">Not called yet</span>;
}

export default function Peers() {
  const { peers, editing } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <PageHeader title="Remote peers" description="Instances this one calls over A2A, with the client credentials their admin issued to us. The secret is sealed at rest and never shown again." />
      {result && 'notice' in result ? <Notice tone={result.usable ? 'success' : 'warning'} role="status">{result.notice}</Notice> : null}
      <div className="space-y-6">
        {/* Mounted anew for each peer changed: the form's initial values are its. */}
        <PeerFormCard key={editing?.id ?? 'new'} />
        <DataTable label="Peers" columns={['Peer', 'Base URL', 'Client id', 'Protocol', 'Status', <span key="actions" className="sr-only">Actions</span>]} isEmpty={peers.length === 0} empty="No peers yet: register one above with the client id and secret its admin issued to this instance.">
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
                <Name code>{p.clientId}</Name>
              </td>
              <td>{p.protocol === '0.3' ? 'A2A 0.3' : 'A2A 1.0 when offered'}</td>
              <td>
                <PeerStatus peer={p} />
              </td>
              <td>
                <div className="flex flex-wrap items-center gap-2">
                  <ButtonLink to={`?edit=${encodeURIComponent(p.id)}`} variant="secondary" size="sm" aria-label={`Change ${p.name}`}>
                    Change
                  </ButtonLink>
                  <Form method="post">
                    <input type="hidden" name="id" value={p.id} />
                    <ConfirmButton name="intent" value="remove" size="sm" variant="danger" aria-label={`Remove ${p.name}`} title={`Remove ${p.name}?`} description="Its sealed secret is deleted and it is not called again; runs bridged from it keep their history." confirmLabel="Remove">
                      Remove
                    </ConfirmButton>
                  </Form>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
