import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Outlet, useLoaderData } from '@remix-run/react';
import { ADMIN_SECTIONS } from '~/admin-sections.ts';
import { requireAdmin } from '~/auth/session.server.ts';
import { AdminShell } from '~/components/shell/admin-shell.tsx';

export const meta: MetaFunction = () => [{ title: 'Administration' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, context.services);
  return { email: admin.email, productName: context.services.config.identity.productName };
}

export default function AdministrationLayout() {
  const { email, productName } = useLoaderData<typeof loader>();
  return (
    <AdminShell productName={productName} email={email} sections={ADMIN_SECTIONS}>
      <Outlet />
    </AdminShell>
  );
}
