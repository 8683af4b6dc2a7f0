import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { z } from 'zod';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, ButtonLink, Card, ConfirmButton, DataTable, Failure, Name, Notice, PageHeader, VisibilityBadge } from '~/components/ui/index.ts';
import { exampleForm, reviewForm } from '~/forms/agents.ts';
import { FormErrors, fixFrom, replyFor } from '~/forms/index.ts';
import { refusalOf } from '~/forms/action-result.server.ts';
import { submitForm } from '~/forms/submission.server.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'Agents' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const [examples, page] = await Promise.all([caller.agents.examples(), caller.extensions.marketplace({ limit: 200 })]);
  const scope = context.services.config.identity.vendorScope;
  return { examples, scope, authored: page.items.filter((x) => x.status !== 'installed' && x.origin.scope === scope) };
}

const actionForm = z.discriminatedUnion('intent', [exampleForm, reviewForm]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const caller = await serverCaller(request, context.services);
  return submitForm('agents', form, actionForm, async (value) => {
    switch (value.intent) {
      case 'example': {
        try {
          const created = await caller.agents.createFromExample({ example: value.example, overwrite: value.overwrite });
          return { notice: `Compiled ${created.packageName}@${created.version}` };
        } catch (error) {
          // A published agent changed since: say what starting over replaces, and ask.
          const refusal = refusalOf(error);
          if (refusal?.code === 'CONFLICT' && !value.overwrite) return { replace: { example: value.example, message: refusal.message } };
          throw error;
        }
      }
      case 'review': {
        const review = await caller.agents.review({ id: value.id });
        return review.passed ? { notice: 'Review passed: no findings.' } : { findings: { error: `Review found ${review.findings.length} problem(s)`, details: review.findings } };
      }
    }
  });
}

export default function Agents() {
  const { examples, authored, scope } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const pending = navigation.formData;
  const refusal = replyFor(result, 'agents');
  const refusalMessages = refusal?.error ? Object.values(refusal.error).flatMap((messages) => messages ?? []) : undefined;
  return (
    <>
      <PageHeader
        title="Agents"
        description={
          <>
            Packages authored on this instance (scope <code>{scope}</code>). Compile derives the runtime fields, review must pass, publish bumps the version and sends the package to a registry.
          </>
        }
      />
      {result && 'notice' in result ? <Notice tone="success">{result.notice}</Notice> : null}
      <Failure failure={result && 'findings' in result ? result.findings : null} />
      {result && 'replace' in result && result.replace ? (
        <Notice tone="warning">
          <p>{result.replace.message}</p>
          <Form method="post" className="mt-2">
            <input type="hidden" name="intent" value="example" />
            <input type="hidden" name="overwrite" value="on" />
            <ConfirmButton name="example" value={result.replace.example} variant="danger" size="sm" title={`Replace with the ${result.replace.example} example?`} description="Its source becomes the shipped example's; what is published stays in the registry, and your next publish is a new version." confirmLabel="Replace it">
              Replace with the example
            </ConfirmButton>
          </Form>
        </Notice>
      ) : null}
      <FormErrors id="agents-errors" errors={refusalMessages} fix={fixFrom(result, 'agents')} />
      <div className="space-y-6">
        <Card title="Start from an example" description="Compiles one of the example packages shipped with the service into this instance’s scope, as a draft you can review and publish.">
          <Form method="post" className="flex flex-wrap gap-2">
            <input type="hidden" name="intent" value="example" />
            {examples.map((example) => (
              <Button key={example} type="submit" name="example" value={example} variant="secondary" busy={pending?.get('example') === example}>
                {example}
              </Button>
            ))}
          </Form>
        </Card>
        <DataTable label="Authored agents" columns={['Package', 'Version', 'Type', 'Status', <span key="actions" className="sr-only">Actions</span>]} isEmpty={authored.length === 0} empty="No agents yet: start from an example above.">
          {authored.map((x) => (
            <tr key={x.id}>
              <td className="min-w-48">
                <strong>
                  <Name>{x.packageName}</Name>
                </strong>
                <div className="text-xs text-muted">{x.compiled.card.description}</div>
              </td>
              <td>{x.version}</td>
              <td>{x.compiled.type}</td>
              <td>{x.status === 'draft' ? <Badge>draft</Badge> : <VisibilityBadge visibility={x.origin.visibility} />}</td>
              <td>
                <div className="flex flex-wrap items-center gap-2">
                  <Form method="post">
                    <input type="hidden" name="intent" value="review" />
                    <Button type="submit" name="id" value={x.id} variant="secondary" size="sm" busy={pending?.get('intent') === 'review' && pending.get('id') === x.id}>
                      Review
                    </Button>
                  </Form>
                  <ButtonLink to={`/administration/agents/${x.id}/publish`} variant="primary" size="sm">
                    Publish…
                  </ButtonLink>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </>
  );
}
