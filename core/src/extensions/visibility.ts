/**
 * THE visibility rule: public rows are visible to everyone; private rows only to the instance
 * whose vendor scope equals `origin.scope`. Every read of extension records starts from this.
 * Both branches are served by indexes: `origin.visibility` and `origin.scope` lead one each.
 */
export function visibilityFilter(readerScope: string) {
  return { $or: [{ 'origin.visibility': 'public' as const }, { 'origin.scope': readerScope, 'origin.visibility': 'private' as const }] };
}

export function isVisibleTo(origin: { scope: string; visibility: 'public' | 'private' }, readerScope: string): boolean {
  return origin.visibility === 'public' || origin.scope === readerScope;
}
