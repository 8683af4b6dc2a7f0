import { Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import { fixFor } from '~/forms/fix-links.ts';
import { cn } from './cn.ts';

export type NoticeTone = 'info' | 'success' | 'warning' | 'danger';

const TONES: Record<NoticeTone, string> = {
  info: 'border-accent/30 bg-accent-soft',
  success: 'border-success/30 bg-success-soft',
  warning: 'border-warning/30 bg-warning-soft',
  danger: 'border-danger/30 bg-danger-soft text-danger',
};

/**
 * A message in the page's flow: the outcome of the last action (`role="status"`), a refusal
 * (`role="alert"`), or a standing condition such as a switch that is off (`role="note"`).
 * Outcomes stay in the page rather than in a toast so they read the same without JavaScript.
 */
export function Notice({ tone = 'info', role, children, className, testId }: { tone?: NoticeTone; role?: 'status' | 'alert' | 'note'; children: ReactNode; className?: string; testId?: string }) {
  return (
    <div role={role ?? (tone === 'danger' ? 'alert' : 'status')} data-testid={testId} className={cn('mb-4 min-w-0 rounded-md border px-3 py-2 text-sm break-words', TONES[tone], className)}>
      {children}
    </div>
  );
}

export interface Finding {
  path: string;
  reason: string;
}

/**
 * A refusal from the server: its message, the findings it was made of, and for a configuration
 * error the page that fixes it.
 */
export function Failure({ failure }: { failure: { error?: string; code?: string; details?: Finding[] | null } | undefined | null }) {
  if (!failure?.error) return null;
  const fix = fixFor({ code: failure.code, message: failure.error });
  return (
    <Notice tone="danger">
      <p>{failure.error}</p>
      {failure.details?.length ? <FindingList findings={failure.details} /> : null}
      <FixLink fix={fix} />
    </Notice>
  );
}

/** The link to the page that fixes a configuration error (forms/fix-links.ts), if there is one. */
export function FixLink({ fix, className }: { fix: { to: string; label: string } | null | undefined; className?: string }) {
  if (!fix) return null;
  return (
    <p className={cn('mt-1', className)}>
      <Link to={fix.to} className="font-semibold">
        {fix.label} →
      </Link>
    </p>
  );
}

/** Review findings or refused fields: each with its path and its reason. */
export function FindingList({ findings }: { findings: Finding[] }) {
  return (
    <ul className="mt-1 list-disc pl-5">
      {findings.map((d) => (
        <li key={`${d.path}:${d.reason}`}>
          <code>{d.path}</code>: {d.reason}
        </li>
      ))}
    </ul>
  );
}
