import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';
import { Diff, JobSteps, ShownFiles } from '~/ui/JobSteps.tsx';
import { useRevalidateWhile } from '~/ui/use-revalidate-while.ts';

export const meta: MetaFunction = () => [{ title: 'Import progress' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const job = await caller.imports.job({ id: params.id ?? '' });
  if (!job) throw new Response('No such import', { status: 404 });
  return { job };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const id = params.id ?? '';
    if (form.get('intent') === 'discard') await caller.imports.discard({ id });
    else await caller.imports.confirm({ id, acknowledgeLicense: form.get('acknowledgeLicense') === 'yes' });
    return { done: true };
  });
}

export default function ImportProgress() {
  const { job } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useRevalidateWhile(job.state === 'running');
  const staged = job.staged;
  const isUpdate = job.targetExtensionId !== null;
  return (
    <>
      <h1 data-job-id={job.id}>
        {isUpdate ? 'Updating' : 'Importing'} {staged?.packageName ?? job.url ?? 'a chat draft'}
      </h1>
      <p>
        Source: <strong>{job.source}</strong>
        {job.url ? (
          <>
            {' '}
            · <code>{job.url}</code>
          </>
        ) : null}
        {job.ref ? <> · ref <code>{job.ref}</code></> : null}
        {job.folder ? <> · folder <code>{job.folder}</code></> : null} · Updates: <strong>{job.updatePolicy}</strong> · State: <strong data-testid="job-state">{job.state}</strong>
      </p>
      <JobSteps steps={job.steps} />
      {job.error ? (
        <Failure failure={{ error: job.error.message, details: Array.isArray(job.error.details) ? (job.error.details as { path: string; reason: string }[]) : null }} />
      ) : null}
      <Failure failure={result && 'error' in result ? result : null} />

      {job.state === 'awaiting-confirmation' && staged ? (
        <Form method="post" aria-label="Confirm the import">
          {isUpdate ? (
            <section aria-label="Update">
              <h2>
                Update {staged.previousVersion} → {staged.version}
              </h2>
              {staged.diff ? <Diff text={staged.diff} /> : <p className="hint">The package files are unchanged.</p>}
            </section>
          ) : null}
          {!staged.license.permissive ? (
            <section aria-label="License">
              <h2>License</h2>
              <p>
                <strong>{staged.license.summary}</strong>
              </p>
              {staged.license.text ? (
                <pre className="file" aria-label="License text">
                  {staged.license.text}
                </pre>
              ) : (
                <p className="hint">The package has no license text. Without a license you may have no right to use it.</p>
              )}
              <label>
                <input type="checkbox" name="acknowledgeLicense" value="yes" required /> I have read the license terms of {staged.packageName} and accept them for this
                instance
              </label>
            </section>
          ) : null}
          <div className="row-actions">
            <button type="submit" name="intent" value="confirm">
              {isUpdate ? 'Confirm update' : 'Acknowledge and install'}
            </button>
            <button type="submit" name="intent" value="discard" className="secondary" formNoValidate>
              Discard
            </button>
          </div>
        </Form>
      ) : null}

      {job.state === 'succeeded' && job.extensionId ? (
        <p className="notice" role="status">
          Installed {staged?.packageName}@{staged?.version}. <Link to={`/administration/extensions/${job.extensionId}`}>Open the extension</Link>
        </p>
      ) : null}
      {staged ? (
        <section aria-label="Package files">
          <h2>Package files</h2>
          <ShownFiles files={staged.files} />
        </section>
      ) : null}
      <p>
        <Link to="/administration/marketplace/import">Import another</Link> · <Link to="/administration/marketplace">Marketplace</Link>
      </p>
    </>
  );
}
