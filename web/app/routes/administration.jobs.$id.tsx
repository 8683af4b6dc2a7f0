import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useRevalidator } from '@remix-run/react';
import { useEffect } from 'react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { PromoteButton } from '~/ui/PromoteButton.tsx';

export const meta: MetaFunction = () => [{ title: 'Publish progress' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const job = await caller.agents.job({ id: params.id ?? '' });
  if (!job) throw new Response('No such job', { status: 404 });
  return { job };
}

const ICON = { pending: '○', running: '◐', done: '✓', failed: '✗' } as const;

export default function JobProgress() {
  const { job } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  // The job runs in the background and records each step in MongoDB; follow it until it ends.
  useEffect(() => {
    if (job.state !== 'running') return;
    const timer = setInterval(() => revalidator.state === 'idle' && revalidator.revalidate(), 400);
    return () => clearInterval(timer);
  }, [job.state, revalidator]);

  return (
    <>
      <h1 data-job-id={job.id}>
        {job.operation === 'publish' ? 'Publishing' : 'Promoting'} {job.packageName}
      </h1>
      <p>
        Destination: <strong>{job.destination}</strong> · State: <strong data-testid="job-state">{job.state}</strong>
      </p>
      <ol className="steps" aria-label="Steps">
        {job.steps.map((step) => (
          <li key={step.id} data-state={step.state} aria-label={`${step.label}: ${step.state}`}>
            {ICON[step.state]} {step.label}
            {step.detail ? <span className="detail">{step.detail}</span> : null}
          </li>
        ))}
      </ol>
      {job.error ? (
        <div className="error" role="alert">
          <p>{job.error.message}</p>
        </div>
      ) : null}
      {job.state === 'succeeded' && job.result ? (
        <p className="notice" role="status">
          Published {job.packageName}@{job.result.version} to {job.result.registryUrl}
        </p>
      ) : null}
      {job.state === 'succeeded' && job.operation === 'publish' && job.destination === 'private' ? (
        <Form method="post" action="/administration/marketplace" className="row-actions">
          <PromoteButton extensionId={job.extensionId} packageName={job.packageName} />
        </Form>
      ) : null}
      <p>
        <Link to="/administration/marketplace">Marketplace</Link> · <Link to="/administration/agents">Agents</Link>
      </p>
    </>
  );
}
