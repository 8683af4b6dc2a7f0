import type { JobStep } from '@service/core/jobs';
import { fixFor } from '~/forms/fix-links.ts';
import { Badge, stateTone } from './badge.tsx';
import { cn } from './cn.ts';
import { FixLink } from './notice.tsx';

const ICON: Record<JobStep['state'], { glyph: string; className: string }> = {
  pending: { glyph: '○', className: 'border-line text-muted' },
  running: { glyph: '◐', className: 'border-accent/40 bg-accent-soft text-accent' },
  done: { glyph: '✓', className: 'border-success/40 bg-success-soft text-success' },
  failed: { glyph: '✗', className: 'border-danger/40 bg-danger-soft text-danger' },
  waiting: { glyph: '…', className: 'border-warning/40 bg-warning-soft text-warning' },
};

/**
 * The steps of a background job (publish, promote, import), each labelled "<label>: <state>".
 * A failed step's reason links to the page that fixes it when it names one (a registry not
 * configured, A2A switched off).
 */
export function JobSteps({ steps }: { steps: JobStep[] }) {
  return (
    <ol aria-label="Steps" className="mb-4 space-y-2">
      {steps.map((step) => {
        const fix = step.state === 'failed' && step.detail ? fixFor({ message: step.detail }) : null;
        return (
          <li key={step.id} data-state={step.state} aria-label={`${step.label}: ${step.state}`} className="flex min-w-0 gap-3 rounded-md border border-line bg-panel px-3 py-2">
            <span aria-hidden="true" className={cn('mt-0.5 inline-flex size-6 shrink-0 items-center justify-center rounded-full border text-sm font-bold', ICON[step.state].className)}>
              {ICON[step.state].glyph}
            </span>
            <div className="min-w-0 flex-1">
              <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
                <span className="font-medium">{step.label}</span>
                <Badge tone={stateTone(step.state)}>{step.state}</Badge>
              </div>
              {step.detail ? <p className={cn('mt-1 text-sm break-words [overflow-wrap:anywhere]', step.state === 'failed' ? 'text-danger' : 'text-muted')}>{step.detail}</p> : null}
              <FixLink fix={fix} className="text-sm" />
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/** Files shown before anything is saved; each scrolls inside its own box. */
export function ShownFiles({ files }: { files: { name: string; text: string }[] }) {
  return (
    <div className="min-w-0 space-y-2">
      {files.map((file) => (
        <details key={file.name} open={file.name !== 'LICENSE'} className="min-w-0 rounded-md border border-line bg-panel">
          <summary className="cursor-pointer px-3 py-2 text-sm font-medium break-words">
            <code>{file.name}</code>
          </summary>
          <pre tabIndex={0} role="region" aria-label={file.name} className="max-h-96 overflow-auto border-t border-line bg-canvas p-3 font-mono text-xs leading-relaxed">
            {file.text}
          </pre>
        </details>
      ))}
    </div>
  );
}

/** A unified diff with added and removed lines marked (their `+`/`-` says it without colour too). */
export function Diff({ text }: { text: string }) {
  return (
    <pre tabIndex={0} role="region" aria-label="Changes" className="max-h-[32rem] min-w-0 overflow-auto rounded-md border border-line bg-canvas py-2 font-mono text-xs leading-relaxed">
      {text.split('\n').map((line, i) => (
        <span
          key={i}
          className={cn(
            'block min-w-max px-3',
            line.startsWith('+') && !line.startsWith('+++') && 'bg-success-soft text-success',
            line.startsWith('-') && !line.startsWith('---') && 'bg-danger-soft text-danger',
            line.startsWith('@@') && 'text-accent',
          )}
        >
          {line || ' '}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
