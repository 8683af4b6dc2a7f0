import { unstable_createMemoryUploadHandler, unstable_parseMultipartFormData } from '@remix-run/node';
import { IMPORT_LIMITS } from '@service/core/archive';
import type { Services } from '@service/core';
import { DomainError } from '@service/core/errors';
import { readFormLimited } from '~/auth/form.server.ts';
import { requireAdmin } from '~/auth/session.server.ts';

/** The whole multipart body: one zip at the archive limit plus the other fields. */
const MAX_UPLOAD_BODY_BYTES = IMPORT_LIMITS.maxArchiveBytes + 64 * 1024;

/**
 * A form that may carry a zip upload, read only for an admin session and only with a declared
 * length under the limit (browsers always declare it); parts are held in memory. The same pages'
 * plain forms (a chat turn carries its history) are read under the same cap.
 */
export async function readUploadForm(request: Request, services: Services): Promise<FormData> {
  await requireAdmin(request, services);
  if (!request.headers.get('content-type')?.startsWith('multipart/form-data')) return readFormLimited(request, MAX_UPLOAD_BODY_BYTES);
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (!Number.isFinite(declared) || declared > MAX_UPLOAD_BODY_BYTES) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `an upload must declare its length and stay under ${MAX_UPLOAD_BODY_BYTES} bytes; nothing was imported`);
  }
  try {
    return await unstable_parseMultipartFormData(request, unstable_createMemoryUploadHandler({ maxPartSize: IMPORT_LIMITS.maxArchiveBytes }));
  } catch (error) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `the upload is over the ${IMPORT_LIMITS.maxArchiveBytes}-byte limit; nothing was imported`, { cause: error });
  }
}

/** The uploaded zip of a form as the imports API takes it, or undefined when none was chosen. */
export async function zipUpload(form: FormData): Promise<{ fileName: string; contentBase64: string } | undefined> {
  const file = form.get('file');
  if (!(file instanceof Blob) || file.size === 0) return undefined;
  return { fileName: (file as File).name || 'upload.zip', contentBase64: Buffer.from(await file.arrayBuffer()).toString('base64') };
}
