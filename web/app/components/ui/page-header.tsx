import type { HTMLAttributes, ReactNode } from 'react';

/**
 * Every page's top: its title (the page's one h1), what it is for, and its main actions.
 * `headingProps` puts attributes on the h1 itself (a job page's `data-job-id`).
 */
export function PageHeader({ title, description, actions, eyebrow, headingProps }: { title: ReactNode; description?: ReactNode; actions?: ReactNode; eyebrow?: ReactNode; headingProps?: HTMLAttributes<HTMLHeadingElement> & { [attribute: `data-${string}`]: string | undefined } }) {
  return (
    <header className="mb-6 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0 max-w-3xl">
        {eyebrow ? <p className="mb-1 text-sm text-muted">{eyebrow}</p> : null}
        <h1 {...headingProps} className="break-words">
          {title}
        </h1>
        {description ? <div className="mt-2 text-sm text-muted">{description}</div> : null}
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </header>
  );
}
