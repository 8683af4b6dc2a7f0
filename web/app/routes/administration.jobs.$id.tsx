import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { JobSteps } from '~/ui/JobSteps.tsx';
import { PromoteButton } from '~/ui/PromoteButton.tsx';
import { useRevalidateWhile } from '~/ui/use-revalidate-while.ts';

export const meta: MetaFunction = () => [{ title: 'Publish progress' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const job = await caller.agents.job({ id: params.id ?? '' });
  if (!job) throw new Response('No such job', { status: 404 });
  return { job };
}

export default function JobProgress() {
  const { job } = useLoaderData<typeof loader>();
  // The job runs in the background and records each step in MongoDB; follow it until it ends.
  useRevalidateWhile(job.state === 'running');

  return (
    <>
      <h1 data-job-id={job.id}>
        {job.operation === 'publish' ? 'Publishing' : 'Promoting'} {job.packageName}
      </h1>
      <p>
        Destination: <strong>{job.destination}</strong> · State: <strong data-testid="job-state">{job.state}</strong>
      </p>
      <JobSteps steps={job.steps} />
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
