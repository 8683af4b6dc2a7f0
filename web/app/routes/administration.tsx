import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, NavLink, Outlet, useLoaderData } from '@remix-run/react';
import { ADMIN_SECTIONS } from '~/admin-sections.ts';
import { requireAdmin } from '~/auth/session.server.ts';

export const meta: MetaFunction = () => [{ title: 'Administration' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, context.services);
  return { email: admin.email, productName: context.services.config.identity.productName };
}

export default function AdministrationLayout() {
  const { email, productName } = useLoaderData<typeof loader>();
  return (
    <div className="shell">
      <nav aria-label="Administration">
        <h2>{productName}</h2>
        <ul>
          {ADMIN_SECTIONS.map((section) => (
            <li key={section.to}>
              <NavLink to={section.to} end={section.end ?? false} className={({ isActive }) => (isActive ? 'active' : '')}>
                {section.label}
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="who">
          Signed in as {email}
          <Form method="post" action="/sign-out">
            <button type="submit" className="link">
              Sign out
            </button>
          </Form>
        </div>
      </nav>
      <main>
        <Outlet />
      </main>
    </div>
  );
}
