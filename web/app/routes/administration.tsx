import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { ADMIN_NAV } from '~/admin-sections.ts';
import { requireAdmin } from '~/auth/session.server.ts';
import { AdminShell } from '~/components/shell/admin-shell.tsx';

export const meta: MetaFunction = () => [{ title: 'Administration' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, context.services);
  return { email: admin.email, productName: context.services.config.identity.productName, vendorScope: context.services.config.identity.vendorScope };
}

export default function AdministrationLayout() {
  const { email, productName, vendorScope } = useLoaderData<typeof loader>();
  return (
    <AdminShell productName={productName} vendorScope={vendorScope} email={email} entries={ADMIN_NAV}>
      <Outlet />
    </AdminShell>
  );
}
