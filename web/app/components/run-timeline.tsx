import { Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import type { ActorLabel, BoundedText, RemoteTask, RunTimeline, RunUsage, TimelineEntry } from '@service/core/runs';
import { formatDuration, formatTime, formatUsd } from '~/components/format.ts';
import { Badge, Card, stateTone } from '~/components/ui/index.ts';

/** A time to the second (UTC), the same on the server and in the browser. */
export function Time({ at }: { at: string }) {
  return (
    <time dateTime={at} className="whitespace-nowrap">
      {formatTime(at)}
    </time>
  );
}

/** A bounded value: its first words, and the rest (up to a limit) behind a <details>. */
export function Bounded({ value, label }: { value: BoundedText; label: string }) {
  if (!value.full) return <span className="text-muted">(empty)</span>;
  if (value.preview === value.full && !value.omitted) return <span className="break-words whitespace-pre-wrap">{value.full}</span>;
  return (
    <details className="min-w-0">
      <summary className="cursor-pointer break-words">
        <span className="sr-only">{label}: </span>
        {value.preview}
      </summary>
      <pre className="mt-1 max-h-96 overflow-auto rounded bg-canvas p-2 text-xs whitespace-pre-wrap break-words">
        {value.full}
        {value.omitted ? `\n… ${value.omitted} more characters not shown` : ''}
      </pre>
    </details>
  );
}

export function Actor({ actor }: { actor: ActorLabel }) {
  return (
    <span title={actor.raw}>
      {actor.label} <span className="text-muted">({actor.kind})</span>
    </span>
  );
}

function Remote({ task }: { task: RemoteTask }) {
  const peer = task.peerName ?? task.peerId;
  return task.url ? (
    <a href={task.url} target="_blank" rel="noreferrer noopener" data-testid="remote-task">
      task {task.taskId} on {peer}
    </a>
  ) : (
    <span data-testid="remote-task">
      task <code>{task.taskId}</code> on {peer}
    </span>
  );
}

export function Usage({ usage }: { usage: Pick<RunUsage, 'inputTokens' | 'outputTokens' | 'costUsd'> }) {
  return (
    <span data-testid="usage">
      {usage.inputTokens.toLocaleString('en')} in / {usage.outputTokens.toLocaleString('en')} out tokens
      {typeof usage.costUsd === 'number' ? ` · ${formatUsd(usage.costUsd)}` : ''}
    </span>
  );
}

/** The run as a whole: when, how long, who, with what, at what cost, and where else to look (rows for the page's Facts). */
export function runFacts(timeline: RunTimeline): [ReactNode, ReactNode][] {
  return [
    ['Started', <Time key="started" at={timeline.startedAt} />],
    ['Ended', timeline.endedAt ? <Time key="ended" at={timeline.endedAt} /> : <span className="text-muted">not yet</span>],
    ...(timeline.durationMs !== null ? ([['Duration', <span key="duration" data-testid="run-duration">{formatDuration(timeline.durationMs)}</span>]] as [ReactNode, ReactNode][]) : []),
    ['Started by', <Actor key="by" actor={timeline.startedBy} />],
    ['Input', <Bounded key="input" value={timeline.input} label="Input" />],
    [
      'Usage',
      timeline.usage ? (
        <span key="usage">
          <Usage usage={timeline.usage} /> <span className="text-muted">({timeline.usage.calls} LLM calls)</span>
        </span>
      ) : (
        <span className="text-muted">not recorded</span>
      ),
    ],
    ...(timeline.remote ? ([['On the peer', <Remote key="remote" task={timeline.remote} />]] as [ReactNode, ReactNode][]) : []),
    ...(timeline.traceUrl
      ? ([
          [
            'Trace',
            <a key="trace" href={timeline.traceUrl} target="_blank" rel="noreferrer noopener">
              Open the trace
            </a>,
          ],
        ] as [ReactNode, ReactNode][])
      : []),
  ];
}

const STEP_KINDS = { llm: 'LLM', call: 'call', ask: 'ask', reply: 'reply' } as const;

function StepEntry({ entry }: { entry: Extract<TimelineEntry, { type: 'step' }> }) {
  const retries = entry.attempts !== null && entry.attempts > 1 ? entry.attempts - 1 : 0;
  return (
    <>
      <div className="flex flex-wrap items-baseline gap-x-3">
        <strong>
          Step {entry.index + 1}: <code>{entry.stepId}</code>
        </strong>
        <Badge tone={entry.status === 'skipped' ? 'neutral' : entry.status === 'failed' ? 'danger' : 'success'}>{entry.status}</Badge>
        {entry.kind ? <span>{STEP_KINDS[entry.kind]}</span> : null}
        {entry.durationMs !== null ? <span data-testid="step-duration">{formatDuration(entry.durationMs)}</span> : null}
        {entry.attempts !== null ? (
          <span>
            {entry.attempts} attempt{entry.attempts === 1 ? '' : 's'}
            {retries ? ` (${retries} retr${retries === 1 ? 'y' : 'ies'})` : ''}
          </span>
        ) : null}
      </div>
      {entry.startedAt ? (
        <div className="text-muted">
          <Time at={entry.startedAt} />
          {entry.endedAt ? (
            <>
              {' → '}
              <Time at={entry.endedAt} />
            </>
          ) : null}
        </div>
      ) : null}
      {entry.usage ? (
        <div>
          {entry.usage.models.join(', ')}: <Usage usage={{ ...entry.usage, ...(entry.usage.costUsd === null ? { costUsd: undefined } : { costUsd: entry.usage.costUsd }) }} />
          {entry.usage.calls > 1 ? <span className="text-muted"> ({entry.usage.calls} calls)</span> : null}
        </div>
      ) : null}
      {entry.remote ? (
        <div>
          Remote: <Remote task={entry.remote} />
          {entry.remoteUsage ? (
            <span data-testid="remote-usage">
              {' '}
              (the peer reported <Usage usage={entry.remoteUsage} />, {entry.remoteUsage.calls} LLM call{entry.remoteUsage.calls === 1 ? '' : 's'})
            </span>
          ) : null}
        </div>
      ) : null}
      {entry.status === 'skipped' ? (
        <div className="text-muted">Not run: its condition did not hold.</div>
      ) : entry.status === 'failed' ? null : (
        <div>
          Output: <Bounded value={entry.output} label={`Output of ${entry.stepId}`} />
        </div>
      )}
    </>
  );
}

function PauseEntry({ entry }: { entry: Extract<TimelineEntry, { type: 'pause' }> }) {
  return (
    <>
      <div className="flex flex-wrap items-baseline gap-x-3">
        <strong>Paused: {entry.title}</strong>
        <Time at={entry.at} />
      </div>
      {entry.remote ? (
        <div>
          Waits on <Remote task={entry.remote} />
        </div>
      ) : null}
      {entry.answer ? (
        <div data-testid="pause-answer">
          Answered <Time at={entry.answer.at} /> by {entry.answer.by ? <Actor actor={entry.answer.by} /> : <span className="text-muted">(not recorded)</span>}:{' '}
          <Bounded value={entry.answer.values} label="Answer" />
        </div>
      ) : (
        <div className="text-muted">Not answered yet.</div>
      )}
    </>
  );
}

const TOOL_OUTCOMES = { ok: ['answered', 'success'], error: ['failed', 'danger'], denied: ['denied', 'warning'], running: ['no answer stored', 'neutral'] } as const;
const DECISIONS = { approved: 'Allowed', edited: 'Allowed with changed arguments', denied: 'Denied' } as const;

function ToolEntry({ entry }: { entry: Extract<TimelineEntry, { type: 'tool' }> }) {
  const [outcome, tone] = TOOL_OUTCOMES[entry.outcome];
  return (
    <div data-testid={`tool-${entry.callId}`}>
      <div className="flex flex-wrap items-baseline gap-x-3">
        <strong>
          Tool <code>{entry.tool}</code>
        </strong>
        <Badge tone={tone}>{outcome}</Badge>
        <span className="text-muted">step {entry.index + 1}, call {entry.callId}</span>
        {entry.durationMs !== null ? <span>{formatDuration(entry.durationMs)}</span> : null}
        <Time at={entry.at} />
      </div>
      {entry.approval ? (
        <div data-testid="tool-approval">
          {DECISIONS[entry.approval.decision]} by {entry.approval.by ? <Actor actor={entry.approval.by} /> : <span className="text-muted">(not recorded)</span>}
          {entry.approval.reason ? `: ${entry.approval.reason}` : ''}
        </div>
      ) : null}
      {entry.arguments ? (
        <div>
          Arguments: <Bounded value={entry.arguments} label={`Arguments of ${entry.tool}`} />
        </div>
      ) : null}
      {entry.result ? (
        <div>
          Result: <Bounded value={entry.result} label={`Result of ${entry.tool}`} />
        </div>
      ) : null}
      {entry.error ? <div className="text-danger">{entry.error}</div> : null}
      {entry.usage ? (
        <div>
          {entry.usage.models.join(', ')}: <Usage usage={{ ...entry.usage, ...(entry.usage.costUsd === null ? { costUsd: undefined } : { costUsd: entry.usage.costUsd }) }} />
        </div>
      ) : null}
      {entry.remote ? (
        <div>
          Remote: <Remote task={entry.remote} />
        </div>
      ) : null}
    </div>
  );
}

function EntryBody({ entry }: { entry: TimelineEntry }) {
  switch (entry.type) {
    case 'tool':
      return <ToolEntry entry={entry} />;
    case 'created':
      return (
        <>
          <strong>Created</strong> <Time at={entry.at} />
        </>
      );
    case 'step':
      return <StepEntry entry={entry} />;
    case 'pause':
      return <PauseEntry entry={entry} />;
    case 'status':
      return (
        <div className="flex flex-wrap items-baseline gap-x-3">
          <Badge tone={stateTone(entry.state)}>{entry.state}</Badge>
          <Time at={entry.at} />
          {entry.text ? <Bounded value={entry.text} label="Message" /> : null}
        </div>
      );
    case 'artifact':
      return (
        <>
          <strong>Artifact{entry.name ? ` ${entry.name}` : ''}:</strong> <Bounded value={entry.text} label="Artifact" />
        </>
      );
    case 'message':
      return (
        <>
          <strong>Message ({entry.role}):</strong> <Bounded value={entry.text} label="Message" />
        </>
      );
  }
}

/** Every event of the page in order, each with its time. */
export function TimelineCard({ timeline, page }: { timeline: RunTimeline; page: { afterSeq: number; nextAfter: number | null } }) {
  return (
    <Card title="Timeline" className="mb-6">
      <ol aria-label="Timeline" className="space-y-2 text-sm">
        {timeline.entries.map((entry) => (
          <li key={`${entry.type}-${entry.seq}`} data-entry={entry.type} className="rounded border-l-4 border-line bg-canvas px-3 py-2 break-words">
            <EntryBody entry={entry} />
          </li>
        ))}
      </ol>
      {page.afterSeq > 0 || page.nextAfter !== null ? (
        <nav aria-label="Pages of the timeline" className="mt-3 flex gap-4 text-sm">
          {page.afterSeq > 0 ? <Link to="?">First events</Link> : null}
          {page.nextAfter !== null ? <Link to={`?after=${page.nextAfter}`}>Later events</Link> : null}
        </nav>
      ) : null}
    </Card>
  );
}
