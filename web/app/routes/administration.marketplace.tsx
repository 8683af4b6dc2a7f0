import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react';
import type { RegistryListingItem } from '@service/core/registry';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';
import { LockedDemote, PromoteButton } from '~/ui/PromoteButton.tsx';
import { VisibilityBadge } from '~/ui/VisibilityBadge.tsx';

export const meta: MetaFunction = () => [{ title: 'Marketplace' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const text = url.searchParams.get('q') ?? '';
  const caller = await serverCaller(request, context.services);
  const page = await caller.extensions.marketplace({ text, after: url.searchParams.get('after') ?? undefined, limit: 50 });
  // The registry listing needs a configured public destination; without one the page still works.
  let available: RegistryListingItem[] = [];
  let listingError: string | null = null;
  try {
    const installed = new Set(page.items.map((x) => x.packageName));
    available = (await caller.extensions.registryListing({ from: 'public', text })).filter((x) => !installed.has(x.packageName));
  } catch (error) {
    listingError = (error as Error).message;
  }
  return { page, available, listingError, scope: context.services.config.identity.vendorScope };
}

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    if (form.get('intent') === 'promote') {
      const { jobId } = await caller.extensions.promote({ id: String(form.get('id') ?? '') });
      return redirect(`/administration/jobs/${jobId}`);
    }
    const installed = await caller.extensions.install({ packageName: String(form.get('packageName') ?? ''), from: 'public' });
    return { notice: `Installed ${installed.packageName}@${installed.version}` };
  });
}

export default function Marketplace() {
  const { page, available, listingError, scope } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  return (
    <>
      <h1>Marketplace</h1>
      <p>
        <Link to="/administration/marketplace/import">Import an extension…</Link> from GitHub, a zip file or a chat
      </p>
      <Form method="get" className="row-actions">
        <input type="search" name="q" defaultValue={params.get('q') ?? ''} placeholder="Search extensions" aria-label="Search extensions" />
        <button type="submit">Search</button>
      </Form>
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <table aria-label="Extensions">
        <thead>
          <tr>
            <th>Package</th>
            <th>Scope</th>
            <th>Version</th>
            <th>Visibility</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {page.items.map((x) => (
            <tr key={x.id} data-package={x.packageName}>
              <td>
                <Link to={`/administration/extensions/${x.id}`}>
                  <strong>{x.packageName}</strong>
                </Link>{' '}
                <span className="hint">
                  ({x.kind}, {x.status}
                  {x.origin.importedFrom ? `, imported from ${x.origin.importedFrom.source}` : ''})
                </span>
                <div className="hint">{x.compiled.card.description}</div>
              </td>
              <td>
                <code>{x.origin.scope}</code>
              </td>
              <td>{x.version}</td>
              <td>
                <VisibilityBadge visibility={x.origin.visibility} />
              </td>
              <td>
                {x.origin.scope === scope && x.status === 'published' ? (
                  <Form method="post" className="row-actions">
                    {x.origin.visibility === 'private' ? <PromoteButton extensionId={x.id} packageName={x.packageName} /> : <LockedDemote />}
                  </Form>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.items.length === 0 ? <p>No extensions match.</p> : null}
      <h2>Available in the public registry</h2>
      {listingError ? <p className="hint">Registry listing unavailable: {listingError}</p> : null}
      {available.length ? (
        <table aria-label="Available packages">
          <tbody>
            {available.map((item) => (
              <tr key={item.packageName}>
                <td>
                  <strong>{item.packageName}</strong> {item.version}
                  <div className="hint">{item.description}</div>
                </td>
                <td>
                  <Form method="post">
                    <input type="hidden" name="packageName" value={item.packageName} />
                    <button type="submit" name="intent" value="install" className="secondary">
                      Install
                    </button>
                  </Form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : listingError ? null : (
        <p className="hint">Nothing new to install.</p>
      )}
    </>
  );
}
