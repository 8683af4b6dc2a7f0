import { useEffect, useState } from 'react';
import { Tooltip } from './tooltip.tsx';

/**
 * A moment, shown one way everywhere: in the browser's locale and time zone (after hydration;
 * the server renders the UTC minute), with the exact ISO time in a tooltip.
 */
export function When({ at }: { at: string | Date }) {
  const iso = typeof at === 'string' ? at : at.toISOString();
  const [text, setText] = useState(() => `${iso.replace('T', ' ').slice(0, 16)} UTC`);
  useEffect(() => {
    const date = new Date(iso);
    if (!Number.isNaN(date.getTime())) setText(date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
  }, [iso]);
  return (
    <Tooltip content={iso}>
      <time dateTime={iso} className="whitespace-nowrap">
        {text}
      </time>
    </Tooltip>
  );
}
