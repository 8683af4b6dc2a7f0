import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';
import { When } from '~/ui/When.tsx';

export const meta: MetaFunction = () => [{ title: 'Runs' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const caller = await serverCaller(request, context.services);
  const before = new URL(request.url).searchParams.get('before');
  const [page, peers] = await Promise.all([caller.runs.list({ limit: 50, before }), caller.a2a.peers.list()]);
  const skills = (await context.services.agentCard()).skills.map((s) => s.id);
  return { runs: page.items, nextBefore: page.nextBefore, peers, skills };
}

export async function action({ request, context }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const peerId = String(form.get('peerId') ?? '');
    const { runId } = await caller.runs.start({ agent: String(form.get('agent') ?? '').trim(), text: String(form.get('text') ?? ''), ...(peerId ? { peerId } : {}) });
    return redirect(`/administration/runs/${runId}`);
  });
}

export default function Runs() {
  const { runs, nextBefore, peers, skills } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  return (
    <>
      <h1>Runs</h1>
      <Failure failure={failure} />
      <Form method="post">
        <fieldset>
          <legend>Start a run</legend>
          <div className="form-grid">
            <label htmlFor="peerId">Instance</label>
            <select id="peerId" name="peerId" defaultValue="">
              <option value="">this instance</option>
              {peers.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({p.baseUrl})
                </option>
              ))}
            </select>
            <label htmlFor="agent">Agent (skill id)</label>
            <input id="agent" name="agent" list="local-skills" required placeholder="@scope/agent" />
            <datalist id="local-skills">
              {skills.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
            <label htmlFor="text">Input</label>
            <textarea id="text" name="text" rows={3} required />
          </div>
          <button type="submit">Start</button>
        </fieldset>
      </Form>
      <table aria-label="Runs">
        <thead>
          <tr>
            <th>Run</th>
            <th>Agent</th>
            <th>State</th>
            <th>Started by</th>
            <th>Started</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td>
                {/* UUIDv7: the first digits are the creation time, the last ones tell runs apart. */}
                <Link to={`/administration/runs/${run.id}`}>…{run.id.slice(-8)}</Link>
              </td>
              <td>{run.agent}</td>
              <td>{run.state}</td>
              <td>
                <span title={`${run.actorType}:${run.actorId}`}>{run.actorName ?? `${run.actorType}:${run.actorId}`}</span>
              </td>
              <td>
                <When at={run.createdAt} />
              </td>
              <td>
                <When at={run.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 ? <p>No runs yet.</p> : null}
      {nextBefore ? (
        <p>
          <Link to={`?before=${encodeURIComponent(nextBefore)}`}>Older runs</Link>
        </p>
      ) : null}
    </>
  );
}
