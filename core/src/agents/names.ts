/** npm scoped package names: `@<scope>/<slug>`, lowercase, as npm accepts them. */
export const PACKAGE_NAME = /^@([a-z0-9][a-z0-9._-]*)\/([a-z0-9][a-z0-9._-]*)$/;

export function scopeOf(packageName: string): string | null {
  const match = PACKAGE_NAME.exec(packageName);
  return match ? `@${match[1]}` : null;
}

export function slugOf(packageName: string): string | null {
  return PACKAGE_NAME.exec(packageName)?.[2] ?? null;
}

/** The function-tool name an LLM sees for an agent: `acme__summarizer` for `@acme/summarizer`. */
export function toolNameOf(packageName: string): string {
  const match = PACKAGE_NAME.exec(packageName);
  if (!match) throw new Error(`not a scoped package name: ${packageName}`);
  return `${match[1]}__${match[2]}`.replace(/[^a-zA-Z0-9_]/g, '_').slice(0, 64);
}
