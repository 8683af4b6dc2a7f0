export function VisibilityBadge({ visibility }: { visibility: 'public' | 'private' }) {
  return <span className={`badge badge-${visibility}`}>{visibility}</span>;
}
