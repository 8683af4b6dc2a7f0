import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useLoaderData } from '@remix-run/react';
import { Fragment } from 'react';
import { bounded, flattenDetails } from '~/components/details-list.ts';
import { Button, ButtonLink, Card, DataTable, Field, inputClasses, Name, PageHeader, Pager, When } from '~/components/ui/index.ts';
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

/** How many detail rows and how many characters of a value a row shows before folding the rest. */
const SHOWN_ROWS = 6;
const SHOWN_CHARS = 120;

function DetailRows({ rows, max }: { rows: [string, string][]; max?: number }) {
  return (
    <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-xs">
      {rows.map(([key, value]) => {
        const shown = max ? bounded(value, max) : value;
        return (
          <Fragment key={key}>
            <dt className="text-muted">
              <Name>{key}</Name>
            </dt>
            <dd className={max ? undefined : 'max-h-60 overflow-auto'} tabIndex={max ? undefined : 0}>
              <Name>{shown}</Name>
            </dd>
          </Fragment>
        );
      })}
    </dl>
  );
}

/** An event's details as a key/value list; many rows or a long value fold the whole behind a disclosure. */
function Details({ details }: { details: unknown }) {
  const rows = flattenDetails(details);
  if (rows.length === 0) return <span className="text-muted">—</span>;
  const folded = rows.length > SHOWN_ROWS || rows.some(([, value]) => value.length > SHOWN_CHARS);
  return (
    <>
      <DetailRows rows={rows.slice(0, SHOWN_ROWS)} max={SHOWN_CHARS} />
      {folded ? (
        <details className="mt-1 min-w-0">
          <summary className="cursor-pointer text-xs">All {rows.length} details</summary>
          <div className="mt-1 rounded-md bg-canvas p-2">
            <DetailRows rows={rows} />
          </div>
        </details>
      ) : null}
    </>
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
                <Name>{row.actor.name ?? raw}</Name>
                {row.actor.name ? (
                  <div className="text-xs text-muted">
                    <Name>{raw}</Name>
                  </div>
                ) : null}
              </td>
              <td>
                <Name code>{row.action}</Name>
              </td>
              <td>
                {row.resourceType}
                {row.resourceId ? (
                  <div className="line-clamp-3 text-xs text-muted" title={row.resourceId}>
                    <Name>{row.resourceId}</Name>
                  </div>
                ) : null}
              </td>
              <td className="min-w-64">
                <Details details={row.details} />
              </td>
            </tr>
          );
        })}
      </DataTable>
    </>
  );
}
