import type { ReactNode } from 'react';
import { cn } from './cn.ts';

export type BadgeTone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

const TONES: Record<BadgeTone, string> = {
  neutral: 'bg-[#eceef4] text-[#3d4356]',
  info: 'bg-accent-soft text-accent-strong',
  success: 'bg-success-soft text-success',
  warning: 'bg-warning-soft text-warning',
  danger: 'bg-danger-soft text-danger',
};

export function Badge({ tone = 'neutral', children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return <span className={cn('inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold whitespace-nowrap', TONES[tone], className)}>{children}</span>;
}

/** The tone of a run, job or import state: one mapping for every list and page. */
export function stateTone(state: string): BadgeTone {
  if (['completed', 'succeeded', 'done', 'active', 'installed', 'connected', 'on'].includes(state)) return 'success';
  if (['failed', 'rejected', 'revoked', 'error'].includes(state)) return 'danger';
  if (['input-required', 'waiting', 'auth-required', 'awaiting-confirmation'].includes(state)) return 'warning';
  if (['working', 'running', 'submitted', 'pending'].includes(state)) return 'info';
  return 'neutral';
}
