import { unstable_createMemoryUploadHandler, unstable_parseMultipartFormData } from '@remix-run/node';
import { IMPORT_LIMITS } from '@service/core/archive';
import { DomainError } from '@service/core/errors';

/** A form that may carry a zip upload: multipart parts are held in memory up to the archive limit. */
export async function readUploadForm(request: Request): Promise<FormData> {
  if (!request.headers.get('content-type')?.startsWith('multipart/form-data')) return request.formData();
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
