export function Failure({ failure }: { failure: { error?: string; details?: { path: string; reason: string }[] | null } | undefined | null }) {
  if (!failure?.error) return null;
  return (
    <div className="error" role="alert">
      <p>{failure.error}</p>
      {failure.details?.length ? <FindingList findings={failure.details} /> : null}
    </div>
  );
}

/** Review findings or refused fields: each with its path and its reason. */
export function FindingList({ findings }: { findings: { path: string; reason: string }[] }) {
  return (
    <ul>
      {findings.map((d) => (
        <li key={`${d.path}:${d.reason}`}>
          <code>{d.path}</code>: {d.reason}
        </li>
      ))}
    </ul>
  );
}
