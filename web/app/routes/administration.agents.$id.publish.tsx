import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import semver from 'semver';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';

export const meta: MetaFunction = () => [{ title: 'Publish' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const extension = await caller.extensions.get({ id: params.id ?? '' });
  if (!extension || extension.status === 'installed') throw new Response('Not an agent authored here', { status: 404 });
  const next = Object.fromEntries((['patch', 'minor', 'major'] as const).map((bump) => [bump, semver.inc(extension.version, bump)]));
  return { extension, next, steps: await caller.agents.publishSteps() };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const { jobId } = await caller.agents.publish({
      id: params.id ?? '',
      destination: form.get('destination') === 'public' ? 'public' : 'private',
      bump: (['minor', 'major'] as const).find((b) => b === form.get('bump')) ?? 'patch',
    });
    return redirect(`/administration/jobs/${jobId}`);
  });
}

export default function Publish() {
  const { extension, next, steps } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  return (
    <>
      <h1>Publish {extension.packageName}</h1>
      <p>
        Current version <strong>{extension.version}</strong>. Publishing runs: {steps.map((s) => s.label).join(' → ')}.
      </p>
      <Failure failure={failure} />
      <Form method="post">
        <div className="form-grid">
          <label htmlFor="destination">Destination</label>
          <select id="destination" name="destination" defaultValue="private">
            <option value="private">private</option>
            <option value="public">public</option>
          </select>
          <label htmlFor="bump">Version bump</label>
          <select id="bump" name="bump" defaultValue="patch">
            <option value="patch">patch → {next.patch}</option>
            <option value="minor">minor → {next.minor}</option>
            <option value="major">major → {next.major}</option>
          </select>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Starting…' : 'Publish'}
        </button>
      </Form>
    </>
  );
}
