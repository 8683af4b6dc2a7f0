import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { Button, ButtonLink, Card, DataTable, Field, inputClasses, PageHeader, Pager, When } from '~/components/ui/index.ts';
import { auditActionFilter, auditActorFilter, auditCursor } from '~/schemas/audit.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Audit log' }];

/** The filters and their lengths, as `audit.list` takes them (dates are `datetime-local` values). */
const FILTERS = { actor: auditActorFilter.maxLength ?? 320, action: auditActionFilter.maxLength ?? 100, from: 32, to: 32 } as const;
type Filter = keyof typeof FILTERS;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const value = (name: string, max: number) => {
    const text = params.get(name)?.trim().slice(0, max);
    // A date the browser did not pick (a hand-edited address) is ignored rather than refused.
    if (text && (name === 'from' || name === 'to') && Number.isNaN(new Date(text).getTime())) return undefined;
    return text || undefined;
  };
  const filter = Object.fromEntries(Object.entries(FILTERS).flatMap(([name, max]) => (value(name, max) ? [[name, value(name, max)!]] : []))) as Partial<Record<Filter, string>>;
  const page = await (await serverCaller(request, context.services)).audit.list({ limit: 50, cursor: value('cursor', auditCursor.maxLength ?? 200) ?? null, ...filter });
  return { ...page, filter };
}

/** Details longer than this are folded behind a disclosure. */
const SHORT_DETAILS = 160;

function Details({ details }: { details: unknown }) {
  const text = JSON.stringify(details) ?? '';
  if (text.length <= SHORT_DETAILS) return <code className="[overflow-wrap:anywhere]">{text}</code>;
  return (
    <details className="min-w-0">
      <summary className="cursor-pointer">
        <code className="[overflow-wrap:anywhere]">{text.slice(0, SHORT_DETAILS)}…</code>
      </summary>
      <pre className="mt-2 max-h-96 overflow-auto rounded-md bg-canvas p-2 text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">{JSON.stringify(details, null, 2)}</pre>
    </details>
  );
}

export default function AuditLog() {
  const page = useLoaderData<typeof loader>();
  const older = page.nextCursor ? `?${new URLSearchParams({ ...page.filter, cursor: page.nextCursor }).toString()}` : null;
  const filtered = Object.keys(page.filter).length > 0;
  return (
    <>
      <PageHeader title="Audit log" description="What was done, by whom and when, newest first." />
      <Card className="mb-6">
        <Form method="get" aria-label="Filter the audit log" className="grid items-end gap-4 sm:grid-cols-2 lg:grid-cols-[repeat(4,minmax(0,1fr))_auto]">
          <Field id="audit-actor" label="Actor">
            <input id="audit-actor" name="actor" defaultValue={page.filter.actor ?? ''} placeholder="email or client id" maxLength={FILTERS.actor} className={inputClasses} />
          </Field>
          <Field id="audit-action" label="Action">
            <input id="audit-action" name="action" defaultValue={page.filter.action ?? ''} placeholder="e.g. settings.update, or a2a." maxLength={FILTERS.action} className={inputClasses} />
          </Field>
          <Field id="audit-from" label="From">
            <input id="audit-from" name="from" type="datetime-local" defaultValue={page.filter.from ?? ''} className={inputClasses} />
          </Field>
          <Field id="audit-to" label="To">
            <input id="audit-to" name="to" type="datetime-local" defaultValue={page.filter.to ?? ''} className={inputClasses} />
          </Field>
          <div className="flex flex-wrap gap-2">
            <Button type="submit">Filter</Button>
            {filtered ? <ButtonLink to=".">Clear</ButtonLink> : null}
          </div>
        </Form>
      </Card>
      <DataTable
        label="Audit events"
        columns={['When', 'Actor', 'Action', 'Resource', 'Details']}
        isEmpty={page.items.length === 0}
        empty={filtered ? 'No audit events match these filters.' : 'No audit events yet.'}
        pager={<Pager older={older} label="Pages of the audit log" />}
      >
        {page.items.map((row) => {
          const raw = `${row.actor.type}:${row.actor.id}`;
          return (
            <tr key={row.id}>
              <td>
                <When at={row.at} />
              </td>
              <td>
                {row.actor.name ?? raw}
                {row.actor.name ? <div className="text-xs text-muted">{raw}</div> : null}
              </td>
              <td>
                <code className="[overflow-wrap:anywhere]">{row.action}</code>
              </td>
              <td>
                {row.resourceType}
                {row.resourceId ? (
                  <div className="line-clamp-3 text-xs text-muted" title={row.resourceId}>
                    {row.resourceId}
                  </div>
                ) : null}
              </td>
              <td className="min-w-48">
                <Details details={row.details} />
              </td>
            </tr>
          );
        })}
      </DataTable>
    </>
  );
}
