import { useId } from 'react';
import { Button, type ButtonProps } from './button.tsx';
import { ConfirmButton } from './confirm-dialog.tsx';
import { Tooltip } from './tooltip.tsx';

/**
 * Promotion is one-way, so the button asks for confirmation before its form submits (without
 * JavaScript it submits at once, as any submit button). It must sit inside a POST form to the
 * marketplace action.
 */
export function PromoteButton({ extensionId, packageName, size = 'sm' }: { extensionId: string; packageName: string; size?: ButtonProps['size'] }) {
  return (
    <>
      <input type="hidden" name="id" value={extensionId} />
      <ConfirmButton
        name="intent"
        value="promote"
        variant="primary"
        size={size}
        title={`Promote ${packageName} to public?`}
        description="Everyone on the public registry will see it. This cannot be undone: a public package cannot be made private again."
        confirmLabel="Promote to public"
      >
        Promote to public
      </ConfirmButton>
    </>
  );
}

const LOCKED_REASON = 'Locked: promotion to public is one-way; a public package cannot be made private again.';

/**
 * Demotion does not exist: a disabled button with the reason in a tooltip. It is disabled with
 * `aria-disabled` rather than `disabled` so it stays focusable and the tooltip shows on focus as
 * well as on hover; the reason is also its description for assistive technology.
 */
export function LockedDemote() {
  const reasonId = useId();
  return (
    <>
      <Tooltip content={LOCKED_REASON}>
        <Button variant="secondary" size="sm" aria-disabled="true" aria-describedby={reasonId} className="cursor-not-allowed opacity-55 hover:bg-panel" onClick={(event) => event.preventDefault()}>
          <LockIcon /> Make private
        </Button>
      </Tooltip>
      <span id={reasonId} className="sr-only" data-testid="locked-reason">
        {LOCKED_REASON}
      </span>
    </>
  );
}

function LockIcon() {
  return (
    <svg className="size-3" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M4 7V5a4 4 0 1 1 8 0v2h1a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1h1Zm2 0h4V5a2 2 0 1 0-4 0v2Z" />
    </svg>
  );
}
