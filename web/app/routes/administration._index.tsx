import type { LoaderFunctionArgs } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await serverCaller(request, context.services)).system.info();
}

export default function Overview() {
  const info = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Administration</h1>
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
        <dt>A2A over HTTP</dt>
        <dd>{info.flags.a2aHttpEnabled ? 'enabled' : 'disabled'}</dd>
        <dt>External AG-UI stream</dt>
        <dd>{info.flags.aguiExternalEnabled ? 'enabled' : 'disabled'}</dd>
      </dl>
    </>
  );
}
