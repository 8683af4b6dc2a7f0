import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import type { FeatureFlagName } from '@service/core/settings';
import { readAdminForm } from '~/auth/form.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await serverCaller(request, context.services)).system.info();
}

// Kept here, not imported from core: this module is also bundled for the browser.
const SWITCHES: Record<FeatureFlagName, { label: string; what: string }> = {
  a2aHttpEnabled: { label: 'A2A over HTTP', what: 'Other instances and A2A clients call this one’s agents at /api/a2a and /a2a/<vendor>/<slug>; off, those answer 404.' },
  aguiExternalEnabled: { label: 'External AG-UI stream', what: 'A2A clients that ask for it get AG-UI events in each streamed event, and /api/a2a/resume answers; off, it answers 404.' },
};
const SWITCH_NAMES = Object.keys(SWITCHES) as FeatureFlagName[];

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    if (form.get('intent') === 'publish-examples') {
      const { jobs } = await (await serverCaller(request, context.services)).agents.publishExamples();
      return { published: jobs };
    }
    const name = String(form.get('flag') ?? '') as FeatureFlagName;
    if (!SWITCH_NAMES.includes(name)) return { error: 'Unknown switch', details: null };
    const enabled = form.get('enabled') === 'true';
    await (await serverCaller(request, context.services)).system.setFlag({ name, enabled });
    return { notice: `${SWITCHES[name].label} is now ${enabled ? 'on' : 'off'} (every process within a second).` };
  });
}

export default function Overview() {
  const info = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>Administration</h1>
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      {result && 'published' in result && result.published ? (
        <div className="notice" role="status">
          Publishing the example agents:{' '}
          {result.published.map((job, i) => (
            <span key={job.jobId}>
              {i > 0 ? ', ' : ''}
              <Link to={`/administration/jobs/${job.jobId}`}>{job.packageName}</Link>
            </span>
          ))}
          . They appear in the AgentCard once their jobs succeed.
        </div>
      ) : null}
      <p data-testid="overview-counts">
        {info.agents.length} agent{info.agents.length === 1 ? '' : 's'} in the AgentCard · {info.status.runsLastDay} run{info.status.runsLastDay === 1 ? '' : 's'} in the last day
        {info.status.failedLastDay ? (
          <>
            {' '}
            (<Link to="/administration/runs">{info.status.failedLastDay} failed</Link>)
          </>
        ) : null}
      </p>
      <h2>Getting started</h2>
      <ul className="checklist" aria-label="Getting started">
        <li data-done="yes">Database: {info.database.kind === 'external' ? 'MongoDB (MONGODB_URI)' : info.database.description}.</li>
        <li data-done={info.registry.routingMode ? 'yes' : 'no'}>
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
        </li>
        <li data-done={info.agents.length ? 'yes' : 'no'}>
          Agents in the AgentCard: {info.agents.length ? info.agents.join(', ') : 'none yet'}.{' '}
          {info.registry.routingMode ? (
            <Form method="post" className="inline">
              <input type="hidden" name="intent" value="publish-examples" />
              <button type="submit" className={info.agents.length ? 'secondary' : undefined}>
                Publish the example agents
              </button>
            </Form>
          ) : null}
        </li>
        <li data-done={info.flags.a2aHttpEnabled ? 'yes' : 'no'}>
          A2A over HTTP: {info.flags.a2aHttpEnabled ? 'on' : <>off (<a href="#switches">switches</a>)</>}.
        </li>
        <li data-done={info.status.clients ? 'yes' : 'no'}>
          A2A clients registered: {info.status.clients} (<Link to="/administration/a2a/clients">A2A clients</Link>).
        </li>
        <li data-done={info.status.connectorInstances ? 'yes' : 'no'}>
          CMS sites connected: {info.status.connectorInstances} (<Link to="/administration/connectors/cms-a-widget">Connectors</Link>).
        </li>
        <li data-done={info.status.widgetKeys ? 'yes' : 'no'}>
          Widget keys issued: {info.status.widgetKeys} (<Link to="/administration/assistants/cms-a-widget">Assistants</Link>).
        </li>
      </ul>
      <Failure failure={result && 'error' in result ? result : null} />
      <dl className="facts">
        <dt>Product</dt>
        <dd>{info.productName}</dd>
        <dt>Instance scope</dt>
        <dd>
          <code>{info.vendorScope}</code>
        </dd>
        <dt>Canonical origin</dt>
        <dd>
          <code>{info.baseUrl}</code>
        </dd>
        <dt>Version</dt>
        <dd>{info.version}</dd>
        <dt>Database</dt>
        <dd>
          {info.database.kind === 'external' ? 'external (MONGODB_URI)' : `embedded: ${info.database.description}`}
          {info.database.kind === 'ferretdb' ? (
            <p className="hint">
              The offline fallback: fine for trying the service and for hundreds of runs a day. For more, set <code>MONGODB_URI</code>: see{' '}
              <code>docs/operations.md</code>, “When to set MONGODB_URI”.
            </p>
          ) : null}
        </dd>
        <dt>History kept</dt>
        <dd>
          {(
            [
              ['finished runs and their events', info.retention.runsDays],
              ['audit rows', info.retention.auditDays],
              ['finished import and publish jobs', info.retention.jobsDays],
            ] as const
          )
            .map(([what, days]) => `${what}: ${days ? `${days} days` : 'forever'}`)
            .join(' · ')}
          <p className="hint">
            Set with <code>SERVICE_RETENTION_RUNS_DAYS</code>, <code>SERVICE_RETENTION_AUDIT_DAYS</code> and <code>SERVICE_RETENTION_JOBS_DAYS</code>; the background sweep deletes older rows in batches.
          </p>
        </dd>
        <dt>LLM</dt>
        <dd>{info.llm.provider === 'scripted' ? 'scripted (offline, no model configured)' : `${info.llm.provider} · ${info.llm.model}`}</dd>
      </dl>
      <h2 id="switches">Switches</h2>
      <p className="hint">Changed here at runtime, no restart; the environment variables only give their first state.</p>
      <table aria-label="Switches">
        <tbody>
          {SWITCH_NAMES.map((name) => (
            <tr key={name}>
              <td>
                <strong>{SWITCHES[name].label}</strong>
                <div className="hint">{SWITCHES[name].what}</div>
              </td>
              <td data-testid={`switch-${name}`}>{info.flags[name] ? 'on' : 'off'}</td>
              <td>
                <Form method="post">
                  <input type="hidden" name="flag" value={name} />
                  <input type="hidden" name="enabled" value={info.flags[name] ? 'false' : 'true'} />
                  <button type="submit" className={info.flags[name] ? 'secondary' : undefined}>
                    {info.flags[name] ? `Turn ${SWITCHES[name].label} off` : `Turn ${SWITCHES[name].label} on`}
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
