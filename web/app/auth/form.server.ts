import type { Services } from '@service/core';
import { DomainError } from '@service/core/errors';
import { readBytesLimited } from '@service/core/http';
import { requireAdmin } from './session.server.ts';

/** An admin form: a few fields and perhaps a pasted run input; uploads have their own cap (upload-form.server.ts). */
export const MAX_ADMIN_FORM_BYTES = 256 * 1024;
/** The sign-in form: an email, a password and a redirect path (up to 8 KiB, percent-encoded: an OAuth authorization request). */
export const MAX_SIGN_IN_FORM_BYTES = 32 * 1024;

/**
 * An admin action's form: the session is checked first (a redirect to sign-in or a 403 is thrown
 * before a byte of the body is read), then at most `maxBytes` are read.
 */
export async function readAdminForm(request: Request, services: Services, maxBytes = MAX_ADMIN_FORM_BYTES): Promise<FormData> {
  await requireAdmin(request, services);
  try {
    return await readFormLimited(request, maxBytes);
  } catch (error) {
    // A body over the limit or unreadable is no form at all: answer its status (413, 400) with
    // the reason on the error page, rather than a 500 from the action that never got its form.
    if (error instanceof DomainError && error.httpStatus < 500) throw new Response(error.message, { status: error.httpStatus });
    throw error;
  }
}

/**
 * A urlencoded or multipart form of at most `maxBytes`, refused with PAYLOAD_TOO_LARGE (413)
 * past that. A declared length over the limit is refused without touching the body, so the
 * server drains and discards it and the browser still sees the answer; an undeclared one is cut
 * off where it crosses the limit.
 */
export async function readFormLimited(request: Request, maxBytes: number): Promise<FormData> {
  const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `The form is larger than ${maxBytes} bytes; nothing was saved`);
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw tooLarge();
  let body: Buffer;
  try {
    body = await readBytesLimited(request, maxBytes, 'the form');
  } catch (error) {
    if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') throw tooLarge();
    throw error;
  }
  const contentType = request.headers.get('content-type') ?? 'application/x-www-form-urlencoded';
  try {
    return await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new DomainError('BAD_REQUEST', 'The form could not be read', { cause: error });
  }
}
