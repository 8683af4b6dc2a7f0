import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ShouldRevalidateFunction } from '@remix-run/react';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { readAdminForm } from '~/auth/form.server.ts';
import { Badge, Button, Card, Facts, Failure, HitlForm, Notice, PageHeader, stateTone, ToolApprovalForm } from '~/components/ui/index.ts';
import { serverCaller } from '~/trpc/handler.server.ts';
import { foundOr404 } from '~/loaders/detail-loader.server.ts';
import { formAction } from '~/forms/action-result.server.ts';
import { valuesFrom } from '~/forms/hitl-screen.ts';
import { runFacts, TimelineCard } from '~/components/run-timeline.tsx';

export const meta: MetaFunction = () => [{ title: 'Run' }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  // `after`: a later page of a long log (the timeline reads at most a page of events at once).
  const after = Number.parseInt(new URL(request.url).searchParams.get('after') ?? '0', 10);
  const afterSeq = Number.isSafeInteger(after) && after > 0 ? after : 0;
  return foundOr404((await serverCaller(request, context.services)).runs.timeline({ id: params.id ?? '', afterSeq }), 'No such run');
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return formAction(async () => {
    const form = await readAdminForm(request, context.services);
    const caller = await serverCaller(request, context.services);
    if (form.get('intent') === 'cancel') {
      await caller.runs.cancel({ id: params.id ?? '' });
      return { canceled: true as const };
    }
    const { run } = await caller.runs.get({ id: params.id ?? '', afterSeq: 0 });
    const interrupt = run.interrupt;
    if (!interrupt) return data({ error: 'This run is not waiting for input', details: null }, { status: 409 });
    const values = interrupt.tool ? approvalValues(form, interrupt.tool.arguments) : valuesFrom(form, interrupt.schema);
    if (values === null) return data({ error: 'The arguments are not JSON: correct them, or deny the call.', details: null }, { status: 400 });
    await caller.runs.answer({ id: run.id, screenId: String(form.get('screenId')), values });
    return { answered: true as const };
  });
}

/**
 * A tool-call approval's values: allowed (with the arguments when they were changed) or denied
 * with the reason; null when changed arguments are not JSON.
 */
function approvalValues(form: FormData, asked: unknown): Record<string, unknown> | null {
  const reason = String(form.get('reason') ?? '').trim();
  if (form.get('decision') === 'deny') return { approved: false, ...(reason ? { reason } : {}) };
  const text = String(form.get('arguments') ?? '').trim();
  let given: unknown;
  try {
    given = text ? JSON.parse(text) : asked;
  } catch {
    return null;
  }
  return { approved: true, ...(JSON.stringify(given) !== JSON.stringify(asked) ? { arguments: given } : {}) };
}

/**
 * The run is read again after every answer or cancel, a refused one too: a remote resume that
 * failed ended the run, and the page must not keep offering the answer form.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, defaultShouldRevalidate }) => formMethod?.toUpperCase() === 'POST' || defaultShouldRevalidate;

type Loaded = Awaited<ReturnType<typeof loader>>;
type Stored = Loaded['events'][number];

const textOf = (parts: { type: string; text?: string }[] | undefined) => (parts ?? []).flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join(' ');

function describe(event: Stored['event']): string {
  switch (event.type) {
    case 'created':
      return `created, ${event.status.state}`;
    case 'status': {
      const text = textOf(event.status.message?.parts);
      return `${event.status.state}${event.interrupt ? ' · INTERRUPT' : ''}${event.received ? ` — answered: ${textOf(event.received.parts) || 'values'}` : ''}${text ? ` — ${text}` : ''}`;
    }
    case 'artifact':
      return `artifact: ${textOf(event.artifact.parts)}`;
    case 'message':
      return `message: ${textOf(event.message.parts)}`;
  }
}

const stateOf = (event: Stored['event']) => (event.type === 'created' || event.type === 'status' ? event.status.state : null);

/** States after which nothing is appended until someone acts: the stream is not opened for them. */
const SETTLED = ['completed', 'failed', 'canceled', 'rejected', 'input-required'];
/** States a run does not leave: nothing to cancel. */
const FINISHED = ['completed', 'failed', 'canceled', 'rejected'];

/**
 * Follows the run's event stream (routes/administration.runs.$id.events.ts) from the last event
 * the page has: each new event arrives once, and the page's data is read again only when the
 * run settles (finished, or waiting for an answer).
 */
function useLiveEvents(runId: string, loaded: Stored[], loadedState: string, follow: boolean): { events: Stored[]; state: string } {
  const revalidator = useRevalidator();
  const lastLoaded = loaded.at(-1)?.seq ?? 0;
  const [streamed, setStreamed] = useState<Stored[]>([]);
  useEffect(() => {
    setStreamed([]);
    if (!follow || SETTLED.includes(loadedState)) return;
    const source = new EventSource(`/administration/runs/${encodeURIComponent(runId)}/events?after=${lastLoaded}`);
    source.onmessage = (message) => {
      const stored = JSON.parse(message.data as string) as Stored;
      setStreamed((current) => (current.some((e) => e.seq === stored.seq) ? current : [...current, stored]));
    };
    source.addEventListener('settled', () => {
      source.close();
      revalidator.revalidate();
    });
    return () => source.close();
    // revalidator is a new object on every render; the stream depends only on where the page stands.
  }, [runId, lastLoaded, loadedState, follow]);
  const events = [...loaded, ...streamed.filter((e) => e.seq > lastLoaded)];
  const latest = [...events].reverse().map((e) => stateOf(e.event)).find(Boolean);
  return { events, state: streamed.length && latest ? latest : loadedState };
}

export default function RunView() {
  const { run, events: loaded, remote, timeline, page } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting';
  // An earlier page of a long log is not followed: new events come after its end.
  const { events, state } = useLiveEvents(run.id, loaded, run.state, page.nextAfter === null);
  const interrupt = run.state === 'input-required' && state === 'input-required' ? run.interrupt : null;
  const cancelable = !FINISHED.includes(state);
  const canceling = busy && navigation.formData?.get('intent') === 'cancel';
  return (
    <>
      <PageHeader eyebrow={<Link to="/administration/runs">Runs</Link>} title={`Run of ${run.agent}${remote ? ' (remote)' : ''}`} />
      <Card className="mb-6">
        <Facts
          items={[
            [
              'State',
              <Badge key="state" tone={stateTone(state)}>
                <span data-testid="run-state">{state}</span>
              </Badge>,
            ],
            ['Task', <code key="task">{run.id}</code>],
            ...runFacts(timeline),
          ]}
        />
        {cancelable ? (
          <Form method="post" className="mt-4">
            <Button type="submit" name="intent" value="cancel" variant="secondary" size="sm" busy={canceling}>
              {remote ? 'Cancel run (here and on the peer)' : 'Cancel run'}
            </Button>
          </Form>
        ) : null}
      </Card>
      <Failure failure={result && 'error' in result ? result : null} />
      {result && 'answered' in result && !interrupt ? <Notice tone="success">Answer sent: the run continues.</Notice> : null}
      {result && 'canceled' in result ? <Notice tone="success">Run canceled{remote ? ', here and on the peer' : ''}.</Notice> : null}
      {interrupt?.tool ? (
        <ToolApprovalForm screenId={interrupt.screenId} title={interrupt.title} call={interrupt.tool} busy={busy} />
      ) : interrupt ? (
        <HitlForm screenId={interrupt.screenId} title={interrupt.title} schema={interrupt.schema} context={interrupt.context} busy={busy} />
      ) : null}
      <TimelineCard timeline={timeline} page={page} />
      <Card title="Events">
        <ol aria-label="Events" className="space-y-1 text-sm">
          {events.map(({ seq, event }) => (
            <li key={seq} data-seq={seq} className="rounded border-l-4 border-line bg-canvas px-3 py-1.5 break-words">
              <span className="mr-2 text-muted">#{seq}</span>
              {describe(event)}
            </li>
          ))}
        </ol>
      </Card>
    </>
  );
}
