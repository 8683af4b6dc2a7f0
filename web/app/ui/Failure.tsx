export function Failure({ failure }: { failure: { error?: string; details?: { path: string; reason: string }[] | null } | undefined | null }) {
  if (!failure?.error) return null;
  return (
    <div className="error" role="alert">
      <p>{failure.error}</p>
      {failure.details?.length ? (
        <ul>
          {failure.details.map((d) => (
            <li key={`${d.path}:${d.reason}`}>
              <code>{d.path}</code>: {d.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
