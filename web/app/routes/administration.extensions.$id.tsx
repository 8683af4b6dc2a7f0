import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { IMPORT_LIMITS } from '@service/core/archive';
import { useMemo, type ReactNode } from 'react';
import { Badge, Button, Card, DataTable, Facts, Failure, FileField, Name, Notice, PageHeader, SelectField, stateTone, VisibilityBadge, When } from '~/components/ui/index.ts';
import { updatePolicyForm, zipUpdateForm } from '~/forms/imports.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { foundOr404 } from '~/loaders/detail-loader.server.ts';
import { formAction } from '~/forms/action-result.server.ts';
import { readUploadForm, zipUpload } from '~/forms/upload-form.server.ts';

export const meta: MetaFunction = () => [{ title: 'Extension' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const extension = await foundOr404(caller.extensions.get({ id: params.id ?? '' }), 'No such extension');
  const imported = extension.origin.importedFrom ? await caller.imports.imported({ extensionId: extension.id }) : null;
  return { extension, imported, maxZipBytes: IMPORT_LIMITS.maxArchiveBytes };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  // A refusal before any form is read (an upload over the limit) is shown at the top.
  return formAction(async () => {
    const form = await readUploadForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const extensionId = params.id ?? '';
    if (form.get('intent') === 'policy') {
      return submitForm('policy', form, updatePolicyForm, async (value) => {
        const updated = await caller.imports.setUpdatePolicy({ extensionId, updatePolicy: value.updatePolicy });
        return { notice: `Updates are now ${updated.origin.importedFrom?.updatePolicy}.` };
      });
    }
    const update = async (zip?: { fileName: string; contentBase64: string }) => {
      const started = await caller.imports.update({ extensionId, ...(zip ? { zip } : {}) });
      if (started.upToDate) return { notice: `Already up to date (commit ${started.commitSha.slice(0, 7)}).` };
      return redirect(`/administration/imports/${started.jobId}`);
    };
    // A zip import's update carries its new zip; a GitHub import's compares the ref again.
    if (form.has('file')) return submitForm('zip-update', form, zipUpdateForm(IMPORT_LIMITS.maxArchiveBytes), async () => update(await zipUpload(form)));
    return update();
  });
}

function PolicyForm({ policy }: { policy: string }) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'policy';
  const [form, fields] = useSchemaForm(updatePolicyForm, { id: 'policy', lastResult: replyFor(result, 'policy'), defaultValue: { updatePolicy: policy } });
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Update policy" className="flex flex-wrap items-end gap-3">
      <SelectField
        meta={fields.updatePolicy}
        label="Updates"
        className="w-full sm:w-64"
        options={[
          { value: 'manual', label: 'manual' },
          { value: 'auto', label: 'auto' },
        ]}
      />
      <Button type="submit" name="intent" value="policy" variant="secondary" busy={busy}>
        Save policy
      </Button>
      <FormErrors id={form.errorId} errors={form.errors} />
    </Form>
  );
}

function ZipUpdateForm({ maxZipBytes }: { maxZipBytes: number }) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'update';
  const schema = useMemo(() => zipUpdateForm(maxZipBytes), [maxZipBytes]);
  const [form, fields] = useSchemaForm(schema, { id: 'zip-update', lastResult: replyFor(result, 'zip-update') });
  return (
    <Form method="post" encType="multipart/form-data" {...getFormProps(form)} aria-label="Update from a zip file" className="flex flex-wrap items-end gap-3">
      <FileField meta={fields.file} label="New zip file" accept=".zip,application/zip" className="w-full sm:w-96" />
      <Button type="submit" name="intent" value="update" busy={busy}>
        Update
      </Button>
      <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'zip-update')} />
    </Form>
  );
}

export default function ExtensionPage() {
  const { extension, imported, maxZipBytes } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const updating = useNavigation().formData?.get('intent') === 'update';
  const from = extension.origin.importedFrom;
  const importedFacts: [string, ReactNode][] = [];
  if (from && imported) {
    importedFacts.push(
      ['Source', <span data-testid="imported-source">{from.source}</span>],
      [
        'From',
        <>
          {from.url ? <Name code>{from.url}</Name> : '—'}
          {imported.ref ? (
            <>
              {' '}
              at <code>{imported.ref}</code>
            </>
          ) : null}
          {imported.folder ? (
            <>
              {' '}
              in <code>{imported.folder}</code>
            </>
          ) : null}
        </>,
      ],
      ['Commit', imported.commitSha ? <code>{imported.commitSha.slice(0, 12)}</code> : '—'],
      ['License', `${from.license ?? 'none declared'}${from.licenseAcknowledged ? ' (acknowledged)' : ''}`],
      ['Updates', <span data-testid="update-policy">{from.updatePolicy}</span>],
      ['Last synced', <span data-testid="last-synced">{from.lastSyncedAt ? <When at={from.lastSyncedAt} /> : '—'}</span>],
    );
    if (imported.nextSyncAt) importedFacts.push(['Next check', <When at={imported.nextSyncAt} />]);
  }
  return (
    <>
      <PageHeader
        eyebrow={<Link to="/administration/marketplace">Marketplace</Link>}
        title={extension.packageName}
        description={
          <span className="flex flex-wrap items-center gap-2">
            {extension.compiled.card.description} <VisibilityBadge visibility={extension.origin.visibility} />
          </span>
        }
      />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <div className="space-y-6">
        <Card title="Origin">
          <Facts
            items={[
              ['Version', extension.version],
              [
                'Kind',
                <>
                  {extension.kind} ({extension.compiled.type}), <Badge tone={stateTone(extension.status)}>{extension.status}</Badge>
                </>,
              ],
              ['Scope', <code>{extension.origin.scope}</code>],
              ['Registry', extension.origin.registryUrl ? <Name>{extension.origin.registryUrl}</Name> : '—'],
              ['Destination', extension.origin.destinationId ?? '—'],
            ]}
          />
        </Card>

        {from && imported ? (
          <>
            <Card title="Imported from">
              <Facts items={importedFacts} />
              {from.source === 'github' || from.source === 'zip' ? (
                <div className="mt-4 flex flex-wrap items-end gap-6 border-t border-line pt-4">
                  {from.source === 'github' ? (
                    <>
                      <PolicyForm policy={from.updatePolicy} />
                      <Form method="post">
                        <Button type="submit" name="intent" value="update" busy={updating}>
                          Update
                        </Button>
                      </Form>
                    </>
                  ) : (
                    <ZipUpdateForm maxZipBytes={maxZipBytes} />
                  )}
                </div>
              ) : null}
            </Card>

            <div className="min-w-0">
              <h2 className="mb-3">Sync history</h2>
              <DataTable label="Sync history" columns={['When', 'What', 'Versions', 'Commit', 'Why']} isEmpty={imported.history.length === 0} empty="Nothing synced yet.">
                {imported.history.map((h, i) => (
                  <tr key={i} data-outcome={h.outcome}>
                    <td>
                      <When at={h.at} />
                    </td>
                    <td>
                      <Badge tone={stateTone(h.outcome)}>{h.outcome}</Badge> <span className="text-muted">({h.trigger})</span>
                    </td>
                    <td>{[h.fromVersion, h.toVersion].filter(Boolean).join(' → ')}</td>
                    <td>{h.commitSha ? <code>{h.commitSha.slice(0, 7)}</code> : ''}</td>
                    <td>{h.reason ?? ''}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
          </>
        ) : null}
      </div>
    </>
  );
}
