import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { requireAdmin } from '~/auth/session.server.ts';
import { Badge, Button, Card, ConfirmButton, DataTable, Notice, PageHeader, TextField, When } from '~/components/ui/index.ts';
import { FormErrors, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { changePasswordForm, PASSWORD_FIELDS, signOutOthersForm } from '~/forms/users.ts';
import { PASSWORD_MIN_LENGTH } from '~/schemas/users.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Your account' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdmin(request, context.services);
  const caller = await serverCaller(request, context.services);
  return { email: user.email, role: user.role, sessions: await caller.account.sessions() };
}

const actionForm = z.union([changePasswordForm, signOutOthersForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services, context.clientAddress);
  const intent = String(form.get('intent') ?? '');
  return submitForm(
    intent === 'password' ? 'password' : 'sessions',
    form,
    actionForm,
    async (value) => {
      if (value.intent === 'password') {
        const { endedSessions } = await caller.account.changePassword({ currentPassword: value.currentPassword, newPassword: value.newPassword });
        return { notice: `Password changed. ${signedOut(endedSessions)}` };
      }
      const { endedSessions } = await caller.account.signOutOthers();
      return { notice: signedOut(endedSessions) };
    },
    { hideFields: PASSWORD_FIELDS },
  );
}

function signedOut(count: number): string {
  if (count === 0) return 'No other session was signed in.';
  return `${count} other session${count === 1 ? ' was' : 's were'} signed out; this one stays signed in.`;
}

function ChangePasswordCard() {
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData?.get('intent') === 'password';
  const [form, fields] = useSchemaForm(changePasswordForm, { id: 'password', lastResult: replyFor(result, 'password') });
  return (
    <Card title="Change your password" description={`At least ${PASSWORD_MIN_LENGTH} characters. Every other session of yours is signed out; this one stays.`}>
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField meta={fields.currentPassword} label="Current password" type="password" autoComplete="current-password" />
          <TextField meta={fields.newPassword} label="New password" type="password" autoComplete="new-password" />
          <TextField meta={fields.repeatPassword} label="Repeat the new password" type="password" autoComplete="new-password" />
        </div>
        <FormErrors id={form.errorId} errors={form.errors} />
        <Button type="submit" name="intent" value="password" busy={busy}>
          Change password
        </Button>
      </Form>
    </Card>
  );
}

export default function Account() {
  const { email, role, sessions } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const sessionsReply = replyFor(result, 'sessions');
  const others = sessions.filter((session) => !session.current).length;
  return (
    <>
      <PageHeader
        title="Your account"
        description={
          <>
            Signed in as <strong>{email}</strong> ({role}).
          </>
        }
      />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      {sessionsReply?.error?.[''] ? <FormErrors id="sessions-errors" errors={sessionsReply.error['']} /> : null}
      <div className="space-y-6">
        <ChangePasswordCard />
        <DataTable label="Your sessions" columns={['Signed in', 'Browser']} isEmpty={sessions.length === 0} empty="No sessions.">
          {sessions.map((session, index) => (
            <tr key={index}>
              <td>
                <When at={session.createdAt} /> {session.current ? <Badge tone="success">this session</Badge> : null}
                <div className="text-xs text-muted">
                  until <When at={session.expiresAt} />
                </div>
              </td>
              <td className="text-sm">{session.userAgent ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
        <Form method="post">
          <ConfirmButton
            name="intent"
            value="sign-out-others"
            variant="danger"
            disabled={others === 0}
            title="Sign out everywhere else?"
            description={`${others} other session${others === 1 ? '' : 's'} of yours end at once; this one stays signed in.`}
            confirmLabel="Sign out everywhere else"
          >
            Sign out everywhere else
          </ConfirmButton>
        </Form>
      </div>
    </>
  );
}
