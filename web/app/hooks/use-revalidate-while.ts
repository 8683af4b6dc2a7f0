import { useRevalidator } from '@remix-run/react';
import { useEffect } from 'react';

/** Reloads the page's data every `everyMs` while `active`: how job pages follow background work. */
export function useRevalidateWhile(active: boolean, everyMs = 400): void {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => revalidator.state === 'idle' && revalidator.revalidate(), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs, revalidator]);
}
