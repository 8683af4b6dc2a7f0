import { Link } from '@remix-run/react';
import type { ReactNode } from 'react';
import { buttonClasses } from './button.tsx';
import { cn } from './cn.ts';

/**
 * A labelled table with its empty state and its pager. On a narrow screen the table scrolls
 * inside its own box, so the page itself never scrolls sideways; long cell values wrap.
 */
export function DataTable({ label, columns, children, empty, isEmpty, pager, className }: { label: string; columns: ReactNode[]; children: ReactNode; empty: ReactNode; isEmpty: boolean; pager?: ReactNode; className?: string }) {
  if (isEmpty) {
    return (
      <div className="rounded-lg border border-dashed border-line bg-panel px-4 py-8 text-center text-sm text-muted" data-testid="empty-state">
        {empty}
      </div>
    );
  }
  return (
    <div className={cn('min-w-0', className)}>
      {/* relative: absolutely placed descendants (screen-reader-only text) stay inside the scrolling box instead of widening the page. */}
      {/* Focusable, so a keyboard can scroll a table wider than the screen. */}
      <div role="region" aria-label={label} tabIndex={0} className="relative overflow-x-auto rounded-lg border border-line bg-panel">
        <table aria-label={label} className="w-full border-collapse text-left text-sm">
          <thead className="bg-canvas text-xs uppercase tracking-wide text-muted">
            <tr>
              {columns.map((column, index) => (
                <th key={index} scope="col" className="px-3 py-2 font-semibold">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-line [&_td]:px-3 [&_td]:py-2 [&_td]:align-top [&_td]:[overflow-wrap:break-word]">{children}</tbody>
        </table>
      </div>
      {pager}
    </div>
  );
}

/** Cursor paging: links to the newer and older pages, each given as a query string (or null at an end). */
export function Pager({ newer, older, label = 'Pages' }: { newer?: string | null; older?: string | null; label?: string }) {
  if (!newer && !older) return null;
  return (
    <nav aria-label={label} className="mt-3 flex justify-between gap-2">
      {newer ? (
        <Link to={newer} className={buttonClasses('secondary', 'sm')}>
          ← Newer
        </Link>
      ) : (
        <span />
      )}
      {older ? (
        <Link to={older} className={buttonClasses('secondary', 'sm')} rel="next">
          Older →
        </Link>
      ) : null}
    </nav>
  );
}
