import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { readAdminForm } from '~/auth/form.server.ts';
import { RUN_STATES, type RunState } from '@service/core/runs';
import { Badge, Button, ButtonLink, Card, DataTable, Field, inputClasses, Name, PageHeader, Pager, SelectField, stateTone, TextareaField, TextField, Tooltip, When } from '~/components/ui/index.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { startRunForm } from '~/forms/start-run.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { formatUsd } from '~/components/format.ts';

export const meta: MetaFunction = () => [{ title: 'Runs' }];

const FORM_ID = 'start-run';

/** The runs page's filters, as the address carries them; a value the page did not offer is ignored rather than refused. */
function filterOf(params: URLSearchParams): RunFilter {
  const state = params.get('state') ?? '';
  const agent = params.get('agent')?.trim().slice(0, 214) ?? '';
  const caller = /^([a-z0-9]+):(.{1,200})$/.exec(params.get('caller')?.trim() ?? '');
  return {
    ...((RUN_STATES as readonly string[]).includes(state) ? { state: state as RunFilter['state'] } : {}),
    ...(agent ? { agent } : {}),
    ...(caller ? { caller: `${caller[1]}:${caller[2]}` } : {}),
  };
}

type RunFilter = { state?: RunState; agent?: string; caller?: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const params = new URL(request.url).searchParams;
  const before = params.get('before')?.slice(0, 200) || null;
  const filter = filterOf(params);
  const [type, ...id] = filter.caller?.split(':') ?? [];
  const [page, peers] = await Promise.all([
    caller.runs.list({ limit: 50, before, ...(filter.state ? { state: filter.state } : {}), ...(filter.agent ? { agent: filter.agent } : {}), ...(type ? { caller: { type, id: id.join(':') } } : {}) }),
    caller.a2a.peers.list(),
  ]);
  const skills = (await context.services.agentCard()).skills.map((s) => s.id);
  return { runs: page.items, nextBefore: page.nextBefore, peers, skills, filter, states: RUN_STATES.filter((state) => state !== 'unknown') };
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

/** Filters by state, agent or who started the runs (a GET form: the address says what is shown). */
function FilterCard({ filter, skills, states }: { filter: RunFilter; skills: string[]; states: readonly string[] }) {
  const filtered = Object.keys(filter).length > 0;
  return (
    <Card>
      <Form method="get" aria-label="Filter the runs" className="grid items-end gap-4 sm:grid-cols-2 lg:grid-cols-[repeat(3,minmax(0,1fr))_auto]">
        <Field id="runs-state" label="State">
          <select id="runs-state" name="state" defaultValue={filter.state ?? ''} className={inputClasses}>
            <option value="">any</option>
            {states.map((state) => (
              <option key={state} value={state}>
                {state}
              </option>
            ))}
          </select>
        </Field>
        <Field id="runs-agent" label="Agent">
          <input id="runs-agent" name="agent" list="runs-agents" defaultValue={filter.agent ?? ''} placeholder="@scope/agent" maxLength={214} className={inputClasses} />
          <datalist id="runs-agents">
            {skills.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </Field>
        <Field id="runs-caller" label="Started by">
          <input id="runs-caller" name="caller" defaultValue={filter.caller ?? ''} placeholder="type:id, e.g. a2a:client-id" maxLength={210} className={inputClasses} />
        </Field>
        <div className="flex flex-wrap gap-2">
          <Button type="submit">Filter</Button>
          {filtered ? <ButtonLink to=".">Clear</ButtonLink> : null}
        </div>
      </Form>
    </Card>
  );
}

export default function Runs() {
  const { runs, nextBefore, peers, skills, filter, states } = useLoaderData<typeof loader>();
  const filtered = Object.keys(filter).length > 0;
  const older = nextBefore ? `?${new URLSearchParams({ ...filter, before: nextBefore }).toString()}` : null;
  const by = (key: keyof RunFilter, value: string) => `?${new URLSearchParams({ ...filter, [key]: value }).toString()}`;
  return (
    <>
      <PageHeader title="Runs" description="Every agent run, newest first: started here, by an A2A client, or bridged from a peer." />
      <div className="space-y-6">
        <StartRunCard peers={peers} skills={skills} />
        <FilterCard filter={filter} skills={skills} states={states} />
        <DataTable
          label="Runs"
          columns={['Run', 'Agent', 'State', 'Started by', 'Started', 'Updated', 'Tokens in / out', 'Cost']}
          isEmpty={runs.length === 0}
          empty={filtered ? 'No runs match these filters.' : 'No runs yet.'}
          pager={<Pager older={older} label="Pages of runs" />}
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
                <Link to={by('agent', run.agent)} title={`Only runs of ${run.agent}`}>
                  <Name code>{run.agent}</Name>
                </Link>
              </td>
              <td>
                <Link to={by('state', run.state)} title={`Only ${run.state} runs`}>
                  <Badge tone={stateTone(run.state)}>{run.state}</Badge>
                </Link>
              </td>
              <td>
                <Tooltip content={`${run.actorType}:${run.actorId}`}>
                  <Link to={by('caller', `${run.actorType}:${run.actorId}`)}>{run.actorName ?? `${run.actorType}:${run.actorId}`}</Link>
                </Tooltip>
              </td>
              <td>
                <When at={run.createdAt} />
              </td>
              <td>
                <When at={run.updatedAt} />
              </td>
              {/* Usage is rolled up on the run head; runs stored before it was recorded have none. */}
              <td className="whitespace-nowrap" data-testid="run-tokens">
                {run.usage ? `${run.usage.inputTokens.toLocaleString('en')} / ${run.usage.outputTokens.toLocaleString('en')}` : <span className="text-muted">—</span>}
              </td>
              <td className="whitespace-nowrap" data-testid="run-cost">
                {typeof run.usage?.costUsd === 'number' ? formatUsd(run.usage.costUsd) : <span className="text-muted">—</span>}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
