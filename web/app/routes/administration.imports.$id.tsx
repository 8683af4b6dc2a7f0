import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import type { ReactNode } from 'react';
import { Badge, Button, ButtonLink, Card, Checkbox, ConfirmButton, Diff, Facts, Failure, JobSteps, Name, Notice, PageHeader, ShownFiles, stateTone, When } from '~/components/ui/index.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { foundOr404 } from '~/loaders/detail-loader.server.ts';
import { formAction } from '~/forms/action-result.server.ts';
import { useRevalidateWhile } from '~/hooks/use-revalidate-while.ts';

export const meta: MetaFunction = () => [{ title: 'Import progress' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const job = await foundOr404(caller.imports.job({ id: params.id ?? '' }), 'No such import');
  return { job };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const id = params.id ?? '';
    if (form.get('intent') === 'discard') {
      await caller.imports.discard({ id });
      return { notice: 'Discarded: nothing was installed.' };
    }
    await caller.imports.confirm({ id, acknowledgeLicense: form.get('acknowledgeLicense') === 'yes' });
    return { done: true };
  });
}

export default function ImportProgress() {
  const { job } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'confirm';
  useRevalidateWhile(job.state === 'running');
  const staged = job.staged;
  const isUpdate = job.targetExtensionId !== null;
  const facts: [string, ReactNode][] = [['Source', <strong>{job.source}</strong>]];
  if (job.url) facts.push(['From', <Name code>{job.url}</Name>]);
  if (job.ref) facts.push(['Ref', <code>{job.ref}</code>]);
  if (job.folder) facts.push(['Folder', <code>{job.folder}</code>]);
  facts.push(
    ['Updates', job.updatePolicy],
    ['Started', <When at={job.createdAt} />],
    [
      'State',
      <Badge tone={stateTone(job.state)}>
        <span data-testid="job-state">{job.state}</span>
      </Badge>,
    ],
  );
  return (
    <>
      <PageHeader
        eyebrow={<Link to="/administration/marketplace/import">Import</Link>}
        title={`${isUpdate ? 'Updating' : 'Importing'} ${staged?.packageName ?? job.url ?? 'a chat draft'}`}
        headingProps={{ 'data-job-id': job.id }}
        actions={
          <>
            <ButtonLink to="/administration/marketplace/import">Import another</ButtonLink>
            <ButtonLink to="/administration/marketplace" variant="ghost">
              Marketplace
            </ButtonLink>
          </>
        }
      />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {job.state === 'succeeded' && job.extensionId ? (
        <Notice tone="success">
          Installed {staged?.packageName}@{staged?.version}. <Link to={`/administration/extensions/${job.extensionId}`}>Open the extension</Link>
        </Notice>
      ) : null}
      {job.error ? <Failure failure={{ error: job.error.message, code: job.error.code, details: Array.isArray(job.error.details) ? (job.error.details as { path: string; reason: string }[]) : null }} /> : null}
      <Failure failure={result && 'error' in result ? result : null} />

      <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section aria-label="Progress" className="min-w-0">
          <JobSteps steps={job.steps} />
        </section>
        <Card title="Import">
          <Facts items={facts} />
        </Card>
      </div>

      {job.state === 'awaiting-confirmation' && staged ? (
        <Form method="post" aria-label="Confirm the import" className="mt-6 space-y-6">
          {isUpdate ? (
            <Card title={`Update ${staged.previousVersion ?? ''} → ${staged.version}`}>{staged.diff ? <Diff text={staged.diff} /> : <p className="text-sm text-muted">The package files are unchanged.</p>}</Card>
          ) : null}
          {!staged.license.permissive ? (
            <Card title="License" description={<strong className="text-ink">{staged.license.summary}</strong>}>
              {staged.license.text ? (
                <pre tabIndex={0} role="region" aria-label="License text" className="mb-4 max-h-96 overflow-auto rounded-md border border-line bg-canvas p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap">
                  {staged.license.text}
                </pre>
              ) : (
                <p className="mb-4 text-sm text-muted">The package has no license text. Without a license you may have no right to use it.</p>
              )}
              <Checkbox name="acknowledgeLicense" value="yes" required className="items-start" label={`I have read the license terms of ${staged.packageName} and accept them for this instance`} />
            </Card>
          ) : null}
          <div className="flex flex-wrap gap-2">
            <Button type="submit" name="intent" value="confirm" busy={busy}>
              {isUpdate ? 'Confirm update' : 'Acknowledge and install'}
            </Button>
            <ConfirmButton name="intent" value="discard" variant="danger" formNoValidate title="Discard this import?" description="The staged package is dropped and nothing is installed. Import it again to start over." confirmLabel="Discard">
              Discard
            </ConfirmButton>
          </div>
        </Form>
      ) : null}

      {staged ? (
        <Card title="Package files" className="mt-6">
          <ShownFiles files={staged.files} />
        </Card>
      ) : null}
    </>
  );
}
