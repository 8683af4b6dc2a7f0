import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';
import { readUploadForm, zipUpload } from '~/ui/upload-form.server.ts';
import { VisibilityBadge } from '~/ui/VisibilityBadge.tsx';
import { When } from '~/ui/When.tsx';

export const meta: MetaFunction = () => [{ title: 'Extension' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const extension = await caller.extensions.get({ id: params.id ?? '' });
  if (!extension) throw new Response('No such extension', { status: 404 });
  const imported = extension.origin.importedFrom ? await caller.imports.imported({ extensionId: extension.id }) : null;
  return { extension, imported };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readUploadForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const extensionId = params.id ?? '';
    if (form.get('intent') === 'policy') {
      const updated = await caller.imports.setUpdatePolicy({ extensionId, updatePolicy: form.get('updatePolicy') === 'auto' ? 'auto' : 'manual' });
      return { notice: `Updates are now ${updated.origin.importedFrom?.updatePolicy}.` };
    }
    const zip = await zipUpload(form);
    const started = await caller.imports.update({ extensionId, ...(zip ? { zip } : {}) });
    if (started.upToDate) return { notice: `Already up to date (commit ${started.commitSha.slice(0, 7)}).` };
    return redirect(`/administration/imports/${started.jobId}`);
  });
}

export default function ExtensionPage() {
  const { extension, imported } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const from = extension.origin.importedFrom;
  return (
    <>
      <h1>{extension.packageName}</h1>
      <p>
        {extension.compiled.card.description} <VisibilityBadge visibility={extension.origin.visibility} />
      </p>
      {result && 'notice' in result ? (
        <p className="notice" role="status">
          {result.notice}
        </p>
      ) : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <dl className="facts" aria-label="Origin">
        <dt>Version</dt>
        <dd>{extension.version}</dd>
        <dt>Kind</dt>
        <dd>
          {extension.kind} ({extension.compiled.type}), {extension.status}
        </dd>
        <dt>Scope</dt>
        <dd>
          <code>{extension.origin.scope}</code>
        </dd>
        <dt>Registry</dt>
        <dd>{extension.origin.registryUrl || '—'}</dd>
        <dt>Destination</dt>
        <dd>{extension.origin.destinationId ?? '—'}</dd>
      </dl>

      {from && imported ? (
        <>
          <h2>Imported</h2>
          <dl className="facts" aria-label="Imported from">
            <dt>Source</dt>
            <dd data-testid="imported-source">{from.source}</dd>
            <dt>From</dt>
            <dd>
              {from.url ? <code>{from.url}</code> : '—'}
              {imported.ref ? <> at <code>{imported.ref}</code></> : null}
              {imported.folder ? <> in <code>{imported.folder}</code></> : null}
            </dd>
            <dt>Commit</dt>
            <dd>{imported.commitSha ? <code>{imported.commitSha.slice(0, 12)}</code> : '—'}</dd>
            <dt>License</dt>
            <dd>
              {from.license ?? 'none declared'} {from.licenseAcknowledged ? '(acknowledged)' : ''}
            </dd>
            <dt>Updates</dt>
            <dd data-testid="update-policy">{from.updatePolicy}</dd>
            <dt>Last synced</dt>
            <dd data-testid="last-synced">{from.lastSyncedAt ? <When at={from.lastSyncedAt} /> : '—'}</dd>
            {imported.nextSyncAt ? (
              <>
                <dt>Next check</dt>
                <dd>
                  <When at={imported.nextSyncAt} />
                </dd>
              </>
            ) : null}
          </dl>

          <div className="row-actions">
            {from.source === 'github' ? (
              <Form method="post" aria-label="Update policy" className="row-actions">
                <label htmlFor="updatePolicy">Updates</label>
                <select id="updatePolicy" name="updatePolicy" defaultValue={from.updatePolicy}>
                  <option value="manual">manual</option>
                  <option value="auto">auto</option>
                </select>
                <button type="submit" name="intent" value="policy" className="secondary">
                  Save policy
                </button>
              </Form>
            ) : null}
            {from.source === 'github' ? (
              <Form method="post">
                <button type="submit" name="intent" value="update">
                  Update
                </button>
              </Form>
            ) : from.source === 'zip' ? (
              <Form method="post" encType="multipart/form-data" className="row-actions" aria-label="Update from a zip file">
                <input name="file" type="file" accept=".zip,application/zip" required aria-label="New zip file" />
                <button type="submit" name="intent" value="update">
                  Update
                </button>
              </Form>
            ) : null}
          </div>

          <h2>Sync history</h2>
          <table aria-label="Sync history">
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Versions</th>
                <th>Commit</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              {imported.history.map((h, i) => (
                <tr key={i} data-outcome={h.outcome}>
                  <td>
                    <When at={h.at} />
                  </td>
                  <td>
                    {h.outcome} ({h.trigger})
                  </td>
                  <td>{[h.fromVersion, h.toVersion].filter(Boolean).join(' → ')}</td>
                  <td>{h.commitSha ? <code>{h.commitSha.slice(0, 7)}</code> : ''}</td>
                  <td>{h.reason ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      <p>
        <Link to="/administration/marketplace">Marketplace</Link>
      </p>
    </>
  );
}
