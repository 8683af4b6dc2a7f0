import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';
import { VisibilityBadge } from '~/ui/VisibilityBadge.tsx';

export const meta: MetaFunction = () => [{ title: 'Agents' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const [examples, page] = await Promise.all([caller.agents.examples(), caller.extensions.marketplace({ limit: 200 })]);
  const scope = context.services.config.identity.vendorScope;
  return { examples, scope, authored: page.items.filter((x) => x.status !== 'installed' && x.origin.scope === scope) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    if (form.get('intent') === 'example') {
      const created = await caller.agents.createFromExample({ example: String(form.get('example')) });
      return { notice: `Compiled ${created.packageName}@${created.version}` };
    }
    const review = await caller.agents.review({ id: String(form.get('id')) });
    return review.passed ? { notice: 'Review passed: no findings.' } : { error: `Review found ${review.findings.length} problem(s)`, details: review.findings };
  });
}

export default function Agents() {
  const { examples, authored, scope } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <h1>Agents</h1>
      <p className="hint">
        Packages authored on this instance (scope <code>{scope}</code>). Compile derives the runtime fields, review must pass, publish bumps the version and sends the package to a registry.
      </p>
      {result && 'notice' in result ? <p className="notice" role="status">{result.notice}</p> : null}
      <Failure failure={result && 'error' in result ? result : null} />
      <Form method="post" className="row-actions">
        <input type="hidden" name="intent" value="example" />
        <span>Start from an example:</span>
        {examples.map((example) => (
          <button key={example} type="submit" name="example" value={example} className="secondary">
            {example}
          </button>
        ))}
      </Form>
      <table>
        <thead>
          <tr>
            <th>Package</th>
            <th>Version</th>
            <th>Type</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {authored.map((x) => (
            <tr key={x.id}>
              <td>
                <strong>{x.packageName}</strong>
                <div className="hint">{x.compiled.card.description}</div>
              </td>
              <td>{x.version}</td>
              <td>{x.compiled.type}</td>
              <td>
                {x.status === 'draft' ? <span className="badge badge-status">draft</span> : <VisibilityBadge visibility={x.origin.visibility} />}
              </td>
              <td className="row-actions">
                <Form method="post">
                  <input type="hidden" name="intent" value="review" />
                  <button type="submit" name="id" value={x.id} className="secondary">
                    Review
                  </button>
                </Form>
                <Link to={`/administration/agents/${x.id}/publish`}>Publish…</Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {authored.length === 0 ? <p>No agents yet: start from an example above.</p> : null}
    </>
  );
}
