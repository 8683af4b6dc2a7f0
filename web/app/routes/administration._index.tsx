import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, Card, cn, DataTable, Facts, Name, Notice, PageHeader } from '~/components/ui/index.ts';
import { FormErrors, fixFrom, replyFor } from '~/forms/index.ts';
import { publishExamplesForm, SWITCH_NAMES, SWITCHES, switchForm } from '~/forms/overview.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Administration' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const [info, running] = await Promise.all([caller.system.info(), caller.jobs.list({ kind: 'publish', state: 'running', limit: 200 })]);
  // The publish jobs still running: the page reloads its data until those it started have ended.
  return { ...info, runningPublishJobs: running.items.map((job) => job.id) };
}

/** How often the page asks again while jobs it started are running. */
const JOB_POLL_MS = 1_000;
/** A little over how long the service caches its AgentCard (core/src/services.ts). */
const AGENT_CARD_CACHE_MS = 1_500;

/**
 * Reloads the page's data every second while any of `jobIds` is still running, so the checklist
 * and counts change when they end, with no reload. Without JavaScript a reload shows the same.
 */
function useRevalidateWhileRunning(jobIds: string[], running: string[]) {
  const { revalidate, state } = useRevalidator();
  const waiting = jobIds.some((id) => running.includes(id));
  const wasWaiting = useRef(false);
  // Runs again only when the page's data or the revalidation's state changes, so a timer set here stands until it fires.
  useEffect(() => {
    if (state !== 'idle') return;
    // Once they have ended, once more after the AgentCard's one-second cache has let go of the old card.
    const ended = !waiting && wasWaiting.current;
    wasWaiting.current = waiting;
    if (!waiting && !ended) return;
    const timer = setTimeout(() => void revalidate(), ended ? AGENT_CARD_CACHE_MS : JOB_POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, running, state, revalidate]);
  return waiting;
}

const actionForm = z.discriminatedUnion('intent', [switchForm, publishExamplesForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm('overview', form, actionForm, async (value) => {
    switch (value.intent) {
      case 'publish-examples':
        return { published: (await caller.agents.publishExamples()).jobs };
      case 'switch':
        await caller.system.setFlag({ name: value.flag, enabled: value.enabled });
        return { notice: `${SWITCHES[value.flag].label} is now ${value.enabled ? 'on' : 'off'} (every process within a second).` };
    }
  });
}

/** One item of the checklist: done or still to do, said in words as well as by its mark. */
function Step({ done, children }: { done: boolean; children: ReactNode }) {
  return (
    <li data-done={done ? 'yes' : 'no'} className="flex min-w-0 gap-3 py-2">
      <span aria-hidden="true" className={cn('mt-0.5 inline-flex size-5 shrink-0 items-center justify-center rounded-full border text-xs font-bold', done ? 'border-success/40 bg-success-soft text-success' : 'border-line text-muted')}>
        {done ? '✓' : ''}
      </span>
      <span className="sr-only">{done ? 'Done: ' : 'To do: '}</span>
      <div className="min-w-0 flex-1 break-words">{children}</div>
    </li>
  );
}

export default function Overview() {
  const info = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const publishing = navigation.formData?.get('intent') === 'publish-examples';
  const refusal = replyFor(result, 'overview');
  const refusalMessages = refusal?.error ? Object.values(refusal.error).flatMap((messages) => messages ?? []) : undefined;
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  // A revalidation clears the action's data: the jobs it started are kept here until another action answers.
  const [published, setPublished] = useState(result && 'published' in result ? result.published : null);
  useEffect(() => {
    if (result) setPublished('published' in result ? result.published : null);
  }, [result]);
  const startedJobs = published ? published.flatMap((job) => (job.jobId ? [job.jobId] : [])) : [];
  const jobsRunning = useRevalidateWhileRunning(startedJobs, info.runningPublishJobs);
  return (
    <>
      <PageHeader title="Administration" description="What is set up on this instance, what is left to do, and the switches that change it at runtime." />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {published ? (
        <Notice tone="success">
          {published.some((job) => job.jobId) ? (
            <>
              Publishing the example agents:{' '}
              {published.flatMap((job) => (job.jobId ? [job] : [])).map((job, i) => (
                <span key={job.jobId}>
                  {i > 0 ? ', ' : ''}
                  <Link to={`/administration/jobs/${job.jobId}`}>{job.packageName}</Link>
                </span>
              ))}
              . {jobsRunning ? 'They appear in the AgentCard once their jobs succeed.' : 'Their jobs have ended: the counts below are up to date.'}{' '}
            </>
          ) : null}
          {published.some((job) => !job.jobId) ? `Already published as shipped: ${published.flatMap((job) => (job.jobId ? [] : [`${job.packageName}@${job.version}`])).join(', ')}.` : null}
        </Notice>
      ) : null}
      <FormErrors id="overview-errors" errors={refusalMessages} fix={fixFrom(result, 'overview')} />

      <p data-testid="overview-counts" className="mb-6 text-sm">
        {plural(info.agents.length, 'agent')} in the AgentCard · {plural(info.status.runsLastDay, 'run')} in the last day
        {info.status.failedLastDay ? (
          <>
            {' '}
            (<Link to="/administration/runs">{info.status.failedLastDay} failed</Link>)
          </>
        ) : null}
      </p>

      <div className="grid min-w-0 gap-6 lg:grid-cols-2">
        <Card title="Getting started">
          <ul className="divide-y divide-line text-sm" aria-label="Getting started">
            <Step done>Database: {info.database.kind === 'external' ? 'MongoDB (MONGODB_URI)' : info.database.description}.</Step>
            <Step done={Boolean(info.registry.routingMode)}>
              Registry:{' '}
              {info.registry.embedded ? (
                <>
                  the embedded one (a Verdaccio this service runs under its data directory). <Link to="/administration/environment/registries">Replace it with real registries</Link> at any time.
                </>
              ) : info.registry.routingMode ? (
                <>
                  configured (<Link to="/administration/environment/registries">Registries</Link>).
                </>
              ) : (
                <>
                  not configured: publishing fails until it is. <Link to="/administration/environment/registries">Configure registries</Link>.
                </>
              )}
            </Step>
            <Step done={info.agents.length > 0}>
              <p>
                Agents in the AgentCard: <span className="[overflow-wrap:anywhere]">{info.agents.length ? info.agents.join(', ') : 'none yet'}</span>.
              </p>
              {info.registry.routingMode ? (
                <Form method="post" className="mt-2">
                  <Button type="submit" name="intent" value="publish-examples" size="sm" variant={info.agents.length ? 'secondary' : 'primary'} busy={publishing}>
                    Publish the example agents
                  </Button>
                </Form>
              ) : null}
            </Step>
            <Step done={info.flags.a2aHttpEnabled}>
              A2A over HTTP:{' '}
              {info.flags.a2aHttpEnabled ? (
                'on'
              ) : (
                <>
                  off (<a href="#switches">switches</a>)
                </>
              )}
              .
            </Step>
            <Step done={info.defaultAgent !== null}>
              Default agent (where an A2A message naming no agent goes):{' '}
              {info.defaultAgent ? <Name code>{info.defaultAgent}</Name> : 'none: a message must name its agent'} (<Link to="/administration/a2a/clients">A2A clients</Link>).
            </Step>
            <Step done={info.status.clients > 0}>
              A2A clients registered: {info.status.clients} (<Link to="/administration/a2a/clients">A2A clients</Link>).
            </Step>
            <Step done={info.status.connectorInstances > 0}>
              CMS sites connected: {info.status.connectorInstances} (<Link to="/administration/connectors/cms-a-widget">Connectors</Link>).
            </Step>
            <Step done={info.status.widgetKeys > 0}>
              Widget keys issued: {info.status.widgetKeys} (<Link to="/administration/assistants/cms-a-widget">Assistants</Link>).
            </Step>
          </ul>
        </Card>

        <Card title="This instance">
          <Facts
            items={[
              ['Product', info.productName],
              ['Instance scope', <code key="scope">{info.vendorScope}</code>],
              ['Canonical origin', <code key="origin">{info.baseUrl}</code>],
              ['Version', info.version],
              [
                'Database',
                <>
                  {info.database.kind === 'external' ? 'external (MONGODB_URI)' : `embedded: ${info.database.description}`}
                  {info.database.kind === 'ferretdb' ? (
                    <span className="mt-1 block text-xs text-muted">
                      The offline fallback: fine for trying the service and for hundreds of runs a day. For more, set <code>MONGODB_URI</code>: see <code>docs/operations.md</code>, “When to set MONGODB_URI”.
                    </span>
                  ) : null}
                </>,
              ],
              [
                'History kept',
                <>
                  {(
                    [
                      ['finished runs and their events', info.retention.runsDays],
                      ['audit rows', info.retention.auditDays],
                      ['finished import and publish jobs', info.retention.jobsDays],
                    ] as const
                  )
                    .map(([what, days]) => `${what}: ${days ? `${days} days` : 'forever'}`)
                    .join(' · ')}
                  <span className="mt-1 block text-xs text-muted">
                    Set with <code>SERVICE_RETENTION_RUNS_DAYS</code>, <code>SERVICE_RETENTION_AUDIT_DAYS</code> and <code>SERVICE_RETENTION_JOBS_DAYS</code>; the background sweep deletes older rows in batches.
                  </span>
                </>,
              ],
              ['LLM', info.llm.provider === 'scripted' ? 'scripted (offline, no model configured)' : `${info.llm.provider} · ${info.llm.model}`],
            ]}
          />
        </Card>
      </div>

      <section id="switches" aria-labelledby="switches-title" className="mt-8 scroll-mt-16">
        <h2 id="switches-title">Switches</h2>
        <p className="mt-1 mb-3 text-sm text-muted">Changed here at runtime, no restart; the environment variables only give their first state.</p>
        <DataTable label="Switches" columns={['Switch', 'State', <span key="change" className="sr-only">Change</span>]} isEmpty={false} empty={null}>
          {SWITCH_NAMES.map((name) => {
            const on = info.flags[name];
            return (
              <tr key={name}>
                <td>
                  <strong>{SWITCHES[name].label}</strong>
                  <p className="mt-0.5 text-xs text-muted">{SWITCHES[name].what}</p>
                </td>
                <td data-testid={`switch-${name}`}>
                  <Badge tone={on ? 'success' : 'neutral'}>{on ? 'on' : 'off'}</Badge>
                </td>
                <td>
                  <Form method="post">
                    <input type="hidden" name="flag" value={name} />
                    <input type="hidden" name="enabled" value={on ? 'false' : 'true'} />
                    <Button type="submit" name="intent" value="switch" size="sm" variant={on ? 'secondary' : 'primary'} busy={navigation.formData?.get('flag') === name}>
                      {/* On a phone the row names the switch; the button says only what it does (its accessible name stays whole). */}
                      Turn <span className="sr-only sm:not-sr-only">{SWITCHES[name].label}</span> {on ? 'off' : 'on'}
                    </Button>
                  </Form>
                </td>
              </tr>
            );
          })}
        </DataTable>
      </section>
    </>
  );
}
