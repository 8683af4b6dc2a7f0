import { useEffect, useState } from 'react';
import { formatRelative } from '../format.ts';
import { Tooltip } from './tooltip.tsx';

/** The server's text: the UTC minute, the same wherever the page renders. */
function serverText(iso: string): string {
  return `${iso.replace('T', ' ').slice(0, 16)} UTC`;
}

/** After hydration: relative within a week ("3 min ago", "yesterday"), else the local date and time. */
function browserText(date: Date): string {
  return formatRelative(date, new Date()) ?? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A moment, shown one way everywhere: relative to now in the browser (after hydration; the server
 * renders the UTC minute), with the exact local and ISO time in a tooltip and in `dateTime`.
 */
export function When({ at }: { at: string | Date }) {
  const iso = typeof at === 'string' ? at : at.toISOString();
  const [text, setText] = useState(() => serverText(iso));
  const [exact, setExact] = useState(iso);
  useEffect(() => {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return;
    const update = () => setText(browserText(date));
    update();
    setExact(`${date.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' })} (${iso})`);
    const timer = setInterval(update, 30_000);
    return () => clearInterval(timer);
  }, [iso]);
  return (
    <Tooltip content={exact}>
      <time dateTime={iso} className="whitespace-nowrap">
        {text}
      </time>
    </Tooltip>
  );
}
