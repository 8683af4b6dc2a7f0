import { getFormProps, type SubmissionResult } from '@conform-to/react';
import { parseWithZod } from '@conform-to/zod/v4';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import type { RegistryListingItem } from '@service/core/registry';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Button, buttonClasses, ButtonLink, Card, DataTable, LockedDemote, Name, Notice, PageHeader, PromoteButton, TextField, VisibilityBadge } from '~/components/ui/index.ts';
import { FormErrors, fixFor, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { installForm, promoteForm, searchForm } from '~/forms/marketplace.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Marketplace' }];

/** The marketplace cursor (a package name) as the tRPC procedure accepts it; anything else starts at the top. */
const MAX_CURSOR = 300;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  // The search box is a GET form: its query string is parsed with the form's schema, and a
  // refused search is answered next to the field (the list then shows everything).
  const search = parseWithZod(url.searchParams, { schema: searchForm });
  const text = search.status === 'success' ? (search.value.q ?? '') : '';
  const rawAfter = url.searchParams.get('after') ?? '';
  const after = rawAfter && rawAfter.length <= MAX_CURSOR ? rawAfter : undefined;
  const caller = await serverCaller(request, context.services);
  const page = await caller.extensions.marketplace({ text, after, limit: 50 });
  // The registry listing needs a configured public destination; without one the page still works.
  let available: RegistryListingItem[] = [];
  let listingError: string | null = null;
  try {
    const installed = new Set(page.items.map((x) => x.packageName));
    available = (await caller.extensions.registryListing({ from: 'public', text })).filter((x) => !installed.has(x.packageName));
  } catch (error) {
    listingError = (error as Error).message;
  }
  return { page, available, listingError, text, after: after ?? null, searchReply: search.status === 'success' ? null : search.reply(), scope: context.services.config.identity.vendorScope };
}

const actionForm = z.discriminatedUnion('intent', [promoteForm, installForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm('marketplace', form, actionForm, async (value) => {
    switch (value.intent) {
      case 'promote': {
        const { jobId } = await caller.extensions.promote({ id: value.id });
        return redirect(`/administration/jobs/${jobId}`);
      }
      case 'install': {
        const installed = await caller.extensions.install({ packageName: value.packageName, from: 'public' });
        return { notice: `Installed ${installed.packageName}@${installed.version}` };
      }
    }
  });
}

function SearchForm({ text, searchReply }: { text: string; searchReply: SubmissionResult<string[]> | null }) {
  const [form, fields] = useSchemaForm(searchForm, { id: 'search', lastResult: searchReply, defaultValue: { q: text } });
  return (
    <Form method="get" {...getFormProps(form)} role="search" className="mb-4 flex flex-wrap items-end gap-2">
      <TextField meta={fields.q} type="search" label="Search extensions" placeholder="Package name or description" className="w-full sm:w-96" />
      <Button type="submit" variant="secondary">
        Search
      </Button>
    </Form>
  );
}

/** The query string of another page of the same search. */
function pageLink(text: string, after: string | null): string {
  const params = new URLSearchParams();
  if (text) params.set('q', text);
  if (after) params.set('after', after);
  const query = params.toString();
  return query ? `?${query}` : '?';
}

export default function Marketplace() {
  const { page, available, listingError, text, after, searchReply, scope } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const pending = useNavigation().formData;
  const refusal = replyFor(result, 'marketplace');
  const refusalMessages = refusal?.error ? Object.values(refusal.error).flatMap((messages) => messages ?? []) : undefined;
  const listingFix = listingError ? (fixFor({ message: listingError }) ?? { to: '/administration/environment/registries', label: 'Configure the registries' }) : null;
  return (
    <>
      <PageHeader
        title="Marketplace"
        description="Every extension this instance can see: authored here, installed, or imported from GitHub, a zip file or a chat."
        actions={
          <ButtonLink to="/administration/marketplace/import" variant="primary">
            Import an extension…
          </ButtonLink>
        }
      />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      <FormErrors id="marketplace-errors" errors={refusalMessages} fix={fixFrom(result, 'marketplace')} />
      <SearchForm key={text} text={text} searchReply={searchReply} />
      <div className="space-y-8">
        <DataTable
          label="Extensions"
          columns={['Package', 'Scope', 'Version', 'Visibility', <span key="actions" className="sr-only">Actions</span>]}
          isEmpty={page.items.length === 0}
          empty={text ? 'No extensions match.' : 'No extensions yet: start from an example on the Agents page, or import one.'}
          pager={
            after || page.nextAfter ? (
              <nav aria-label="Pages" className="mt-3 flex justify-between gap-2">
                {after ? (
                  <Link to={pageLink(text, null)} className={buttonClasses('secondary', 'sm')}>
                    ← First page
                  </Link>
                ) : (
                  <span />
                )}
                {page.nextAfter ? (
                  <Link to={pageLink(text, page.nextAfter)} className={buttonClasses('secondary', 'sm')} rel="next">
                    Next page →
                  </Link>
                ) : null}
              </nav>
            ) : null
          }
        >
          {page.items.map((x) => (
            <tr key={x.id} data-package={x.packageName}>
              <td className="min-w-56">
                <Link to={`/administration/extensions/${x.id}`} className="font-semibold">
                  <Name>{x.packageName}</Name>
                </Link>{' '}
                <span className="text-xs text-muted">
                  ({x.kind}, {x.status}
                  {x.origin.importedFrom ? `, imported from ${x.origin.importedFrom.source}` : ''})
                </span>
                <div className="text-xs text-muted">{x.compiled.card.description}</div>
              </td>
              <td>
                <code>{x.origin.scope}</code>
              </td>
              <td>{x.version}</td>
              <td data-testid="visibility">
                <VisibilityBadge visibility={x.origin.visibility} />
              </td>
              <td>
                {x.origin.scope === scope && x.status === 'published' ? (
                  <Form method="post" className="flex flex-wrap items-center gap-2">
                    {x.origin.visibility === 'private' ? <PromoteButton extensionId={x.id} packageName={x.packageName} /> : <LockedDemote />}
                  </Form>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>

        <Card title="Available in the public registry" description="Packages on the public registry that are not on this instance yet.">
          {listingError ? (
            <Notice tone="warning" role="note" className="mb-0">
              Registry listing unavailable: {listingError}{' '}
              {listingFix ? (
                <Link to={listingFix.to} className="font-semibold">
                  {listingFix.label} →
                </Link>
              ) : null}
            </Notice>
          ) : (
            <DataTable label="Available packages" columns={['Package', 'Version', <span key="actions" className="sr-only">Actions</span>]} isEmpty={available.length === 0} empty="Nothing new to install.">
              {available.map((item) => (
                <tr key={item.packageName}>
                  <td className="min-w-48">
                    <strong>
                      <Name>{item.packageName}</Name>
                    </strong>
                    <div className="text-xs text-muted">{item.description}</div>
                  </td>
                  <td>{item.version}</td>
                  <td>
                    <Form method="post">
                      <input type="hidden" name="packageName" value={item.packageName} />
                      <Button type="submit" name="intent" value="install" variant="secondary" size="sm" busy={pending?.get('intent') === 'install' && pending.get('packageName') === item.packageName}>
                        Install
                      </Button>
                    </Form>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
      </div>
    </>
  );
}
