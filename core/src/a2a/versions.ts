import { DomainError } from '../errors/index.ts';

/** An A2A-Version value naming 1.0 (or a 1.0.x patch). */
export const isVersion10 = (version: string) => /^1\.0(\.\d+)?$/.test(version);
/** An A2A-Version value naming 0.3 (or a 0.3.x patch). */
export const isVersion03 = (version: string) => /^0\.3(\.\d+)?$/.test(version);

/** The A2A-Version an HTTP request names: its header, or the query parameter the spec allows instead; null for none. */
export function requestedVersion(request: Request): string | null {
  return (request.headers.get('a2a-version') ?? new URL(request.url).searchParams.get('A2A-Version'))?.trim() || null;
}

/** Refuses a version other than 1.0 on a binding that speaks only 1.0; a request naming none is read as 1.0. `hint` ends the message. */
export function checkVersion10(version: string | null | undefined, binding: string, hint = ''): void {
  if (!version || isVersion10(version)) return;
  throw new DomainError('VERSION_NOT_SUPPORTED', `A2A-Version ${version.slice(0, 20)} is not supported on the ${binding} binding: it speaks 1.0${hint}`);
}
