import type { ReactNode } from 'react';
import { cn } from './cn.ts';

/** A panel of related content; with a title it is a labelled region. */
export function Card({ title, description, actions, children, className, id }: { title?: ReactNode; description?: ReactNode; actions?: ReactNode; children?: ReactNode; className?: string; id?: string }) {
  return (
    <section id={id} aria-label={typeof title === 'string' ? title : undefined} className={cn('min-w-0 rounded-lg border border-line bg-panel p-4 sm:p-5', className)}>
      {title || actions ? (
        <header className="mb-3 flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            {title ? <h2>{title}</h2> : null}
            {description ? <p className="mt-1 text-sm text-muted">{description}</p> : null}
          </div>
          {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
        </header>
      ) : null}
      {children}
    </section>
  );
}

/** Label/value pairs (a run's facts, an extension's origin): two columns, one on a phone. */
export function Facts({ items, className }: { items: [label: ReactNode, value: ReactNode][]; className?: string }) {
  return (
    <dl className={cn('grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]', className)}>
      {items.map(([label, value], index) => (
        <div key={index} className="contents">
          <dt className="font-semibold">{label}</dt>
          <dd className="mb-2 min-w-0 break-words sm:mb-0">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
