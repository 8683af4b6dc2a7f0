import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { Badge, ButtonLink, Card, Facts, Failure, JobSteps, Name, Notice, PageHeader, PromoteButton, stateTone, type Finding } from '~/components/ui/index.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { foundOr404 } from '~/loaders/detail-loader.server.ts';
import { useRevalidateWhile } from '~/hooks/use-revalidate-while.ts';

export const meta: MetaFunction = () => [{ title: 'Publish progress' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const job = await foundOr404(caller.agents.job({ id: params.id ?? '' }), 'No such job');
  return { job };
}

/** A job error's details, when they are findings (a path and a reason each). */
function findingsOf(details: unknown): Finding[] | null {
  if (!Array.isArray(details)) return null;
  const findings = details.filter((d): d is Finding => typeof (d as Finding | null)?.path === 'string' && typeof (d as Finding).reason === 'string');
  return findings.length ? findings : null;
}

export default function JobProgress() {
  const { job } = useLoaderData<typeof loader>();
  // The job runs in the background and records each step in MongoDB; follow it until it ends.
  useRevalidateWhile(job.state === 'running');

  return (
    <>
      <PageHeader
        title={`${job.operation === 'publish' ? 'Publishing' : 'Promoting'} ${job.packageName}`}
        headingProps={{ 'data-job-id': job.id }}
        actions={
          <>
            <ButtonLink to="/administration/marketplace" size="sm">
              Marketplace
            </ButtonLink>
            <ButtonLink to="/administration/agents" size="sm">
              Agents
            </ButtonLink>
          </>
        }
      />
      <Facts
        className="mb-4"
        items={[
          ['Destination', job.destination],
          [
            'State',
            <Badge key="state" tone={stateTone(job.state)}>
              <span data-testid="job-state">{job.state}</span>
            </Badge>,
          ],
          ...(job.result ? ([['Version', job.result.version]] as [string, string][]) : []),
        ]}
      />
      <JobSteps steps={job.steps} />
      {job.error ? <Failure failure={{ error: job.error.message, code: job.error.code, details: findingsOf(job.error.details) }} /> : null}
      {job.state === 'succeeded' && job.result ? (
        <Notice tone="success">
          Published {job.packageName}@{job.result.version} to <Name>{job.result.registryUrl}</Name>
        </Notice>
      ) : null}
      {job.state === 'succeeded' && job.operation === 'publish' && job.destination === 'private' ? (
        <Card title="Make it public" description="Publishes this version to the public registry too. Promotion is one-way: a public package cannot be made private again.">
          <Form method="post" action="/administration/marketplace">
            <PromoteButton extensionId={job.extensionId} packageName={job.packageName} size="md" />
          </Form>
        </Card>
      ) : null}
    </>
  );
}
