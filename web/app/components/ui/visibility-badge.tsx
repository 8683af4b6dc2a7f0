import { Badge } from './badge.tsx';

/** Where a package is published: public (everyone on the public registry) or private. */
export function VisibilityBadge({ visibility }: { visibility: 'public' | 'private' }) {
  return <Badge tone={visibility === 'public' ? 'info' : 'neutral'}>{visibility}</Badge>;
}
