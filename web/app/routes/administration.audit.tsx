import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Audit log' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const cursor = new URL(request.url).searchParams.get('cursor');
  return (await serverCaller(request, context.services)).audit.list({ limit: 50, cursor });
}

export default function AuditLog() {
  const page = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Audit log</h1>
      {page.items.length === 0 ? (
        <p>No audit events yet.</p>
      ) : (
        <table>
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
            {page.items.map((row) => (
              <tr key={row.id}>
                <td>
                  <time dateTime={row.at}>{row.at.replace('T', ' ').slice(0, 19)}</time>
                </td>
                <td>
                  {row.actor.type}:{row.actor.id}
                </td>
                <td>{row.action}</td>
                <td>
                  {row.resourceType}
                  {row.resourceId ? ` ${row.resourceId}` : ''}
                </td>
                <td>
                  <code>{JSON.stringify(row.details)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.nextCursor ? (
        <p>
          <Link to={`?cursor=${encodeURIComponent(page.nextCursor)}`}>Older events →</Link>
        </p>
      ) : null}
    </>
  );
}
