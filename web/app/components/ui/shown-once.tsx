import type { ReactNode } from 'react';
import { Button } from './button.tsx';
import { Notice } from './notice.tsx';
import { useToast } from './toast.tsx';

/** A secret the server shows once (a client secret, a widget key): the value, selectable, and a Copy button. */
export function ShownOnce({ children, value, what, testId }: { children: ReactNode; value: string; what: string; testId: string }) {
  const toast = useToast();
  return (
    <Notice tone="success">
      <p>{children}</p>
      <div className="mt-1 flex flex-wrap items-center gap-2">
        <code data-testid={testId} className="rounded bg-panel px-2 py-1 break-all">
          {value}
        </code>
        <Button variant="secondary" size="sm" onClick={() => void navigator.clipboard?.writeText(value).then(() => toast({ title: `${what} copied` }))}>
          Copy
        </Button>
      </div>
    </Notice>
  );
}
