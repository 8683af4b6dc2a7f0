import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { requireAdmin } from '~/auth/session.server.ts';
import { Badge, Button, buttonClasses, Card, ConfirmButton, DataTable, Name, Notice, PageHeader, SelectField, ShownOnce, TextField, When } from '~/components/ui/index.ts';
import { FormErrors, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { createUserForm, PASSWORD_FIELDS, userActionForm } from '~/forms/users.ts';
import { PASSWORD_MIN_LENGTH } from '~/schemas/users.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Users' }];

const PAGE_SIZE = 50;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const me = await requireAdmin(request, context.services);
  const caller = await serverCaller(request, context.services);
  const after = new URL(request.url).searchParams.get('after')?.slice(0, 320) || null;
  return { me: me.id, after, page: await caller.users.list({ limit: PAGE_SIZE, after }) };
}

const actionForm = z.union([createUserForm, userActionForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  const intent = String(form.get('intent') ?? '');
  return submitForm(
    intent === 'create' ? 'create' : 'user',
    form,
    actionForm,
    async (value) => {
      switch (value.intent) {
        case 'create': {
          const { user, password } = await caller.users.create({ email: value.email, role: value.role, ...(value.password ? { password: value.password } : {}) });
          return password ? { created: { email: user.email, password } } : { notice: `Created ${user.email} (${user.role}) with the password you typed.` };
        }
        case 'make-admin':
        case 'make-member': {
          const user = await caller.users.setRole({ userId: value.userId, role: value.intent === 'make-admin' ? 'admin' : 'member' });
          return { notice: `${user.email} is now ${user.role === 'admin' ? 'an admin' : 'a member'}.` };
        }
        case 'remove':
          await caller.users.remove({ userId: value.userId });
          return { notice: 'Removed the user; their sessions ended at once.' };
      }
    },
    { hideFields: PASSWORD_FIELDS },
  );
}

function CreateUserCard() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'create';
  const [form, fields] = useSchemaForm(createUserForm, { id: 'create', lastResult: replyFor(result, 'create'), defaultValue: { role: 'member' } });
  return (
    <Card title="Add a user" description="Leave the password empty to have one generated; it is shown once, here. Give it to the user over a channel you trust; they change it on their account page.">
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField meta={fields.email} label="Email" type="email" autoComplete="off" />
          <SelectField
            meta={fields.role}
            label="Role"
            options={[
              { value: 'member', label: 'member' },
              { value: 'admin', label: 'admin' },
            ]}
          />
          <TextField meta={fields.password} label="Initial password (optional)" type="password" autoComplete="new-password" help={`At least ${PASSWORD_MIN_LENGTH} characters, or empty.`} />
        </div>
        <FormErrors id={form.errorId} errors={form.errors} />
        <Button type="submit" name="intent" value="create" busy={busy}>
          Add user
        </Button>
      </Form>
    </Card>
  );
}

export default function Users() {
  const { me, after, page } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const userReply = replyFor(result, 'user');
  return (
    <>
      <PageHeader title="Users" description="Who can sign in. Admins manage this instance; the last admin cannot be demoted or removed. Every change here is in the audit log." />
      {result && 'created' in result && result.created ? (
        <ShownOnce value={result.created.password} what="Password" testId="user-password">
          Created <code>{result.created.email}</code>. Its password (shown once, copy it now):
        </ShownOnce>
      ) : null}
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {userReply?.error?.[''] ? <FormErrors id="user-errors" errors={userReply.error['']} /> : null}
      <div className="space-y-6">
        <CreateUserCard />
        <DataTable
          label="Users"
          columns={['Email', 'Role', 'Added', '']}
          isEmpty={page.users.length === 0}
          empty="No users on this page."
          pager={
            after || page.next ? (
              <nav aria-label="Pages of users" className="mt-3 flex justify-between gap-2">
                {after ? (
                  <Link to="?" className={buttonClasses('secondary', 'sm')}>
                    ← First page
                  </Link>
                ) : (
                  <span />
                )}
                {page.next ? (
                  <Link to={`?${new URLSearchParams({ after: page.next }).toString()}`} className={buttonClasses('secondary', 'sm')} rel="next">
                    Next →
                  </Link>
                ) : null}
              </nav>
            ) : null
          }
        >
          {page.users.map((user) => (
            <tr key={user.id}>
              <td>
                <strong>
                  <Name>{user.email}</Name>
                </strong> {user.id === me ? <Badge>you</Badge> : null}
              </td>
              <td>
                <Badge tone={user.role === 'admin' ? 'success' : 'neutral'}>{user.role}</Badge>
              </td>
              <td>
                <When at={user.createdAt} />
              </td>
              <td>
                <Form method="post" className="flex flex-wrap gap-2">
                  <input type="hidden" name="userId" value={user.id} />
                  {user.role === 'admin' ? (
                    <ConfirmButton name="intent" value="make-member" size="sm" title={`Make ${user.email} a member?`} description="They keep signing in but can no longer use Administration." confirmLabel="Make member">
                      Make member
                    </ConfirmButton>
                  ) : (
                    <Button type="submit" name="intent" value="make-admin" size="sm" variant="secondary">
                      Make admin
                    </Button>
                  )}
                  <ConfirmButton name="intent" value="remove" size="sm" variant="danger" title={`Remove ${user.email}?`} description="Their account is deleted and their sessions end at once. This cannot be undone." confirmLabel="Remove">
                    Remove
                  </ConfirmButton>
                </Form>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
