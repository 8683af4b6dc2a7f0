import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { useRef, useState, type ReactNode } from 'react';
import { Button, type ButtonProps } from './button.tsx';

/**
 * A submit button that asks first. With JavaScript the click opens a dialog, and confirming
 * submits the button's form with the button's own name and value; without JavaScript it is a
 * plain submit button (the server decides as it always does).
 */
export function ConfirmButton({ title, description, confirmLabel, children, variant = 'secondary', ...buttonProps }: { title: ReactNode; description: ReactNode; confirmLabel: string; children: ReactNode } & ButtonProps) {
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  return (
    <AlertDialog.Root open={open} onOpenChange={setOpen}>
      <Button
        ref={button}
        type="submit"
        variant={variant}
        {...buttonProps}
        onClick={(event) => {
          // requestSubmit below submits without a click, so every click here asks.
          event.preventDefault();
          setOpen(true);
        }}
      >
        {children}
      </Button>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg bg-panel p-5 shadow-xl">
          <AlertDialog.Title className="text-lg font-semibold">{title}</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-muted">{description}</AlertDialog.Description>
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary">Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button
                variant={variant === 'danger' ? 'danger' : 'primary'}
                onClick={() => {
                  const submitter = button.current;
                  submitter?.form?.requestSubmit(submitter);
                }}
              >
                {confirmLabel}
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
