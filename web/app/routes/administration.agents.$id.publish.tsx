import { getFormProps } from '@conform-to/react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import semver from 'semver';
import { readAdminForm } from '~/auth/form.server.ts';
import { Button, Card, Facts, PageHeader, SelectField, VisibilityBadge } from '~/components/ui/index.ts';
import { publishForm } from '~/forms/agents.ts';
import { FormErrors, fixFrom, replyFor, useSchemaForm } from '~/forms/index.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { foundOr404 } from '~/loaders/detail-loader.server.ts';

export const meta: MetaFunction = () => [{ title: 'Publish' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const extension = await foundOr404(caller.extensions.get({ id: params.id ?? '' }), 'Not an agent authored here');
  if (extension.status === 'installed') throw new Response('Not an agent authored here', { status: 404 });
  const next = Object.fromEntries((['patch', 'minor', 'major'] as const).map((bump) => [bump, semver.inc(extension.version, bump)]));
  return { extension, next, steps: await caller.agents.publishSteps() };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm('publish', form, publishForm, async (value) => {
    const { jobId } = await caller.agents.publish({ id: params.id ?? '', destination: value.destination, bump: value.bump });
    return redirect(`/administration/jobs/${jobId}`);
  });
}

export default function Publish() {
  const { extension, next, steps } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  const [form, fields] = useSchemaForm(publishForm, { id: 'publish', lastResult: replyFor(result, 'publish'), defaultValue: { destination: 'private', bump: 'patch' } });
  return (
    <>
      <PageHeader eyebrow={<Link to="/administration/agents">Agents</Link>} title={<span className="[overflow-wrap:anywhere]">Publish {extension.packageName}</span>} description={extension.compiled.card.description} />
      <div className="grid min-w-0 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <Card title="Publish a new version">
          <Form method="post" {...getFormProps(form)} className="space-y-4">
            <div className="grid gap-4 sm:grid-cols-2">
              <SelectField
                meta={fields.destination}
                label="Destination"
                help="Private: your private registry. Public: everyone on the public registry, one-way."
                options={[
                  { value: 'private', label: 'private' },
                  { value: 'public', label: 'public' },
                ]}
              />
              <SelectField
                meta={fields.bump}
                label="Version bump"
                options={[
                  { value: 'patch', label: `patch → ${next.patch}` },
                  { value: 'minor', label: `minor → ${next.minor}` },
                  { value: 'major', label: `major → ${next.major}` },
                ]}
              />
            </div>
            <FormErrors id={form.errorId} errors={form.errors} fix={fixFrom(result, 'publish')} />
            <Button type="submit" busy={busy}>
              Publish
            </Button>
          </Form>
        </Card>
        <Card title="What publishing does">
          <Facts
            items={[
              ['Current version', <strong key="version">{extension.version}</strong>],
              ['Visibility', extension.status === 'draft' ? 'draft, never published' : <VisibilityBadge key="visibility" visibility={extension.origin.visibility} />],
            ]}
          />
          <ol className="mt-3 list-decimal space-y-0.5 pl-5 text-sm" aria-label="Publishing runs">
            {steps.map((step) => (
              <li key={step.id}>{step.label}</li>
            ))}
          </ol>
        </Card>
      </div>
    </>
  );
}
