import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react';
import { useEffect } from 'react';
import { serverCaller } from '~/trpc/handler.server.ts';
import { readAdminForm } from '~/auth/form.server.ts';
import { formAction } from '~/ui/action-result.server.ts';
import { Failure } from '~/ui/Failure.tsx';
import { HitlForm } from '~/ui/HitlForm.tsx';
import { valuesFrom } from '~/ui/hitl-form.ts';

export const meta: MetaFunction = () => [{ title: 'Run' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  return (await serverCaller(request, context.services)).runs.get({ id: params.id ?? '', afterSeq: 0 });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    const { run, events } = await caller.runs.get({ id: params.id ?? '', afterSeq: 0 });
    const interrupt = pendingInterrupt(run, events);
    if (!interrupt) return data({ error: 'This run is not waiting for input', details: null }, { status: 409 });
    await caller.runs.answer({ id: run.id, screenId: String(form.get('screenId')), values: valuesFrom(form, interrupt.schema) });
    return { answered: true as const };
  });
}

type Loaded = Awaited<ReturnType<typeof loader>>;

/** The open INTERRUPT: a local run's progress, or (bridged remote runs) the last input-required event. */
type PendingInterrupt = { screenId: string; title: string; schema: Record<string, unknown>; context?: Record<string, string> };

function pendingInterrupt(run: Loaded['run'], events?: Loaded['events']): PendingInterrupt | null {
  if (run.state !== 'input-required') return null;
  if (run.progress.interrupt) return run.progress.interrupt;
  const last = events?.at(-1)?.event as { metadata?: { interrupt?: PendingInterrupt } } | undefined;
  return last?.metadata?.interrupt ?? null;
}

function describe(event: Loaded['events'][number]['event']): string {
  if (event.kind === 'task') return `task ${event.status.state}`;
  if (event.kind === 'status-update') {
    const text = event.status.message?.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join(' ');
    return `${event.status.state}${event.metadata && 'interrupt' in event.metadata ? ' · INTERRUPT' : ''}${text ? ` — ${text}` : ''}`;
  }
  if (event.kind === 'artifact-update') return `artifact: ${event.artifact.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join(' ')}`;
  return 'message';
}

export default function RunView() {
  const { run, events, remote } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const revalidator = useRevalidator();
  const busy = useNavigation().state === 'submitting';
  const live = !['completed', 'failed', 'canceled', 'rejected', 'input-required'].includes(run.state);
  // Events are appended to the run's log as they happen; follow it until the run settles.
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => revalidator.state === 'idle' && revalidator.revalidate(), 400);
    return () => clearInterval(timer);
  }, [live, revalidator]);
  const interrupt = pendingInterrupt(run, events);
  return (
    <>
      <h1>
        Run of {run.agent} {remote ? '(remote)' : ''}
      </h1>
      <p>
        State: <strong data-testid="run-state">{run.state}</strong> · task <code>{run.id}</code>
      </p>
      <Failure failure={result && 'error' in result ? result : null} />
      {interrupt ? <HitlForm screenId={interrupt.screenId} title={interrupt.title} schema={interrupt.schema} context={interrupt.context} busy={busy} /> : null}
      <ol className="steps" aria-label="Events">
        {events.map(({ seq, event }) => (
          <li key={seq} data-seq={seq}>
            #{seq} {describe(event)}
          </li>
        ))}
      </ol>
    </>
  );
}
