import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { When } from '~/ui/When.tsx';

export const meta: MetaFunction = () => [{ title: 'Audit log' }];

const FILTERS = ['actor', 'action', 'from', 'to'] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const value = (name: string) => params.get(name)?.trim().slice(0, 320) || undefined;
  const filter = Object.fromEntries(FILTERS.flatMap((name) => (value(name) ? [[name, value(name)!]] : []))) as Partial<Record<(typeof FILTERS)[number], string>>;
  const page = await (await serverCaller(request, context.services)).audit.list({ limit: 50, cursor: value('cursor') ?? null, ...filter });
  return { ...page, filter };
}

/** Details longer than this are folded behind a disclosure. */
const SHORT_DETAILS = 160;

export default function AuditLog() {
  const page = useLoaderData<typeof loader>();
  const more = new URLSearchParams({ ...page.filter, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) });
  const filtered = Object.keys(page.filter).length > 0;
  return (
    <>
      <h1>Audit log</h1>
      <Form method="get" className="filters" aria-label="Filter the audit log">
        <label>
          Actor <input name="actor" defaultValue={page.filter.actor ?? ''} placeholder="email or client id" maxLength={320} />
        </label>
        <label>
          Action <input name="action" defaultValue={page.filter.action ?? ''} placeholder="e.g. settings.update, or a2a." maxLength={100} />
        </label>
        <label>
          From <input name="from" type="datetime-local" defaultValue={page.filter.from ?? ''} />
        </label>
        <label>
          To <input name="to" type="datetime-local" defaultValue={page.filter.to ?? ''} />
        </label>
        <button type="submit">Filter</button>
        {filtered ? <Link to=".">Clear</Link> : null}
      </Form>
      {page.items.length === 0 ? (
        <p>{filtered ? 'No audit events match these filters.' : 'No audit events yet.'}</p>
      ) : (
        <table className="audit">
          <thead>
            <tr>
              <th>When</th>
              <th>Actor</th>
              <th>Action</th>
              <th>Resource</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((row) => {
              const details = JSON.stringify(row.details);
              return (
                <tr key={row.id}>
                  <td>
                    <When at={row.at} />
                  </td>
                  <td title={`${row.actor.type}:${row.actor.id}`}>{row.actor.name ?? `${row.actor.type}:${row.actor.id}`}</td>
                  <td>{row.action}</td>
                  <td>
                    {row.resourceType}
                    {row.resourceId ? ` ${row.resourceId}` : ''}
                  </td>
                  <td>
                    {details.length <= SHORT_DETAILS ? (
                      <code>{details}</code>
                    ) : (
                      <details>
                        <summary>
                          <code>{details.slice(0, SHORT_DETAILS)}…</code>
                        </summary>
                        <pre className="file">{JSON.stringify(row.details, null, 2)}</pre>
                      </details>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {page.nextCursor ? (
        <p>
          <Link to={`?${more.toString()}`}>Older events →</Link>
        </p>
      ) : null}
    </>
  );
}
