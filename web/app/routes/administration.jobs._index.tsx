import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import type { JobKind, JobState } from '@service/core/jobs';
import { formatDuration } from '~/components/format.ts';
import { Badge, Button, ButtonLink, Card, DataTable, Field, inputClasses, PageHeader, Pager, stateTone, When } from '~/components/ui/index.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Jobs' }];

type JobFilter = { kind?: JobKind; state?: JobState };

// The kinds and states come from core/src/jobs/job-list.ts; listed here, as the page's bundle does not load core's database modules.
const JOB_KINDS: readonly JobKind[] = ['publish', 'import', 'sync'];
const JOB_STATES: readonly JobState[] = ['running', 'awaiting-confirmation', 'succeeded', 'failed', 'discarded'];

/** The page's filters as the address carries them; a value the page does not offer is ignored. */
function filterOf(params: URLSearchParams): JobFilter {
  const kind = params.get('kind') ?? '';
  const state = params.get('state') ?? '';
  return {
    ...((JOB_KINDS as readonly string[]).includes(kind) ? { kind: kind as JobKind } : {}),
    ...((JOB_STATES as readonly string[]).includes(state) ? { state: state as JobState } : {}),
  };
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const before = params.get('before');
  const filter = filterOf(params);
  const page = await (await serverCaller(request, context.services)).jobs.list({ limit: 50, ...filter, ...(before && /^[a-f0-9]{24}$/.test(before) ? { before } : {}) });
  return { jobs: page.items, nextBefore: page.nextBefore, filter };
}

const KIND_LABELS: Record<JobKind, string> = { publish: 'Publish', import: 'Import', sync: 'Sync' };

export default function Jobs() {
  const { jobs, nextBefore, filter } = useLoaderData<typeof loader>();
  const filtered = Object.keys(filter).length > 0;
  const older = nextBefore ? `?${new URLSearchParams({ ...filter, before: nextBefore }).toString()}` : null;
  return (
    <>
      <PageHeader title="Jobs" description="Publishes and promotions, imports and the sync of imported extensions, newest first." />
      <div className="space-y-6">
        <Card>
          <Form method="get" aria-label="Filter the jobs" className="grid items-end gap-4 sm:grid-cols-[repeat(2,minmax(0,1fr))_auto]">
            <Field id="jobs-kind" label="Kind">
              <select id="jobs-kind" name="kind" defaultValue={filter.kind ?? ''} className={inputClasses}>
                <option value="">any</option>
                {JOB_KINDS.map((kind) => (
                  <option key={kind} value={kind}>
                    {KIND_LABELS[kind]}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="jobs-state" label="State">
              <select id="jobs-state" name="state" defaultValue={filter.state ?? ''} className={inputClasses}>
                <option value="">any</option>
                {JOB_STATES.map((state) => (
                  <option key={state} value={state}>
                    {state}
                  </option>
                ))}
              </select>
            </Field>
            <div className="flex flex-wrap gap-2">
              <Button type="submit">Filter</Button>
              {filtered ? <ButtonLink to=".">Clear</ButtonLink> : null}
            </div>
          </Form>
        </Card>
        <DataTable
          label="Jobs"
          columns={['Job', 'Kind', 'State', 'Steps', 'Started', 'Duration', 'Failure']}
          isEmpty={jobs.length === 0}
          empty={filtered ? 'No jobs match these filters.' : 'No jobs yet.'}
          pager={<Pager older={older} label="Pages of jobs" />}
        >
          {jobs.map((job) => (
            <tr key={`${job.kind}-${job.id}`} data-job-id={job.id}>
              <td className="min-w-[10rem]">
                <Link to={job.href}>{job.title}</Link>
              </td>
              <td>{KIND_LABELS[job.kind]}</td>
              <td>
                <Badge tone={stateTone(job.state)}>{job.outcome && job.outcome !== job.state ? `${job.state} (${job.outcome})` : job.state}</Badge>
              </td>
              <td>
                {job.steps.length ? (
                  <span title={job.steps.map((s) => `${s.label}: ${s.state}`).join('\n')}>
                    {job.steps.filter((s) => s.state === 'done').length} of {job.steps.length} done
                  </span>
                ) : (
                  <span className="text-muted">—</span>
                )}
              </td>
              <td>
                <When at={job.createdAt} />
              </td>
              <td className="whitespace-nowrap">{job.durationMs !== null ? formatDuration(job.durationMs) : <span className="text-muted">—</span>}</td>
              <td data-testid="job-failure">
                {job.failure ? (
                  <>
                    {job.failure.step ? <strong>{job.failure.step}: </strong> : null}
                    {job.failure.message}
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
