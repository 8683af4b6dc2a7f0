import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, Card, DataTable, PageHeader, Pager, SelectField, stateTone, TextareaField, TextField, Tooltip } from '~/components/ui/index.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { startRunForm } from '~/forms/start-run.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { When } from '~/ui/When.tsx';

export const meta: MetaFunction = () => [{ title: 'Runs' }];

const FORM_ID = 'start-run';

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const before = new URL(request.url).searchParams.get('before')?.slice(0, 200) || null;
  const [page, peers] = await Promise.all([caller.runs.list({ limit: 50, before }), caller.a2a.peers.list()]);
  const skills = (await context.services.agentCard()).skills.map((s) => s.id);
  return { runs: page.items, nextBefore: page.nextBefore, peers, skills };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm(FORM_ID, form, startRunForm, async (value) => {
    const { runId } = await caller.runs.start({ agent: value.agent, text: value.text, ...(value.peerId ? { peerId: value.peerId } : {}) });
    return redirect(`/administration/runs/${runId}`);
  });
}

function StartRunCard({ peers, skills }: { peers: { id: string; name: string; baseUrl: string }[]; skills: string[] }) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData != null;
  const [form, fields] = useSchemaForm(startRunForm, { id: FORM_ID, lastResult: replyFor(result, FORM_ID), defaultValue: { peerId: '' } });
  return (
    <Card title="Start a run" description="Runs an agent here, or a remote one through a registered peer, and opens its live view.">
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField meta={fields.peerId} label="Instance" options={[{ value: '', label: 'this instance' }, ...peers.map((p) => ({ value: p.id, label: `${p.name} (${p.baseUrl})` }))]} />
          <TextField meta={fields.agent} label="Agent (skill id)" list="local-skills" placeholder="@scope/agent" help="This instance’s agents are suggested; a peer’s are listed on its AgentCard." />
          <datalist id="local-skills">
            {skills.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
          <TextareaField meta={fields.text} label="Input" rows={3} className="sm:col-span-2" />
        </div>
        <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, FORM_ID)} />
        <Button type="submit" busy={busy}>
          Start
        </Button>
      </Form>
    </Card>
  );
}

export default function Runs() {
  const { runs, nextBefore, peers, skills } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader title="Runs" description="Every agent run, newest first: started here, by an A2A client, or bridged from a peer." />
      <div className="space-y-6">
        <StartRunCard peers={peers} skills={skills} />
        <DataTable
          label="Runs"
          columns={['Run', 'Agent', 'State', 'Started by', 'Started', 'Updated']}
          isEmpty={runs.length === 0}
          empty="No runs yet."
          pager={<Pager older={nextBefore ? `?before=${encodeURIComponent(nextBefore)}` : null} label="Pages of runs" />}
        >
          {runs.map((run) => (
            <tr key={run.id}>
              <td>
                {/* UUIDv7: the first digits are the creation time, the last ones tell runs apart. */}
                <Link to={`/administration/runs/${run.id}`} className="whitespace-nowrap">
                  …{run.id.slice(-8)}
                </Link>
              </td>
              <td>
                <code className="[overflow-wrap:anywhere]">{run.agent}</code>
              </td>
              <td>
                <Badge tone={stateTone(run.state)}>{run.state}</Badge>
              </td>
              <td>
                <Tooltip content={`${run.actorType}:${run.actorId}`}>
                  <span>{run.actorName ?? `${run.actorType}:${run.actorId}`}</span>
                </Tooltip>
              </td>
              <td>
                <When at={run.createdAt} />
              </td>
              <td>
                <When at={run.updatedAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
