/**
 * Promotion is one-way, so the button asks for confirmation before its form submits.
 * It must sit inside a POST form to the marketplace action.
 */
export function PromoteButton({ extensionId, packageName }: { extensionId: string; packageName: string }) {
  return (
    <>
      <input type="hidden" name="id" value={extensionId} />
      <button
        type="submit"
        name="intent"
        value="promote"
        onClick={(event) => {
          if (!window.confirm(`Promote ${packageName} to public? Everyone on the public registry will see it. This cannot be undone.`)) event.preventDefault();
        }}
      >
        Promote to public
      </button>
    </>
  );
}

/** Demotion does not exist: shown disabled with the reason. */
export function LockedDemote() {
  const reason = 'Locked: promotion to public is one-way; a public package cannot be made private again.';
  return (
    <span className="locked" title={reason}>
      <button type="button" className="secondary" disabled aria-disabled="true" aria-label={`Make private (${reason})`}>
        <LockIcon /> Make private
      </button>
    </span>
  );
}

function LockIcon() {
  return (
    <svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M4 7V5a4 4 0 1 1 8 0v2h1a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1h1Zm2 0h4V5a2 2 0 1 0-4 0v2Z" />
    </svg>
  );
}
