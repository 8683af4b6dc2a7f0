import { DomainError } from '../errors/index.ts';

/**
 * Reads a request body as text, refusing more than `maxBytes` whatever Content-Length claims:
 * the declared length is checked first, then the bytes actually read.
 */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new DomainError('PAYLOAD_TOO_LARGE', `request body is larger than ${maxBytes} bytes`);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new DomainError('PAYLOAD_TOO_LARGE', `request body is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
