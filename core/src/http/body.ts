import { DomainError } from '../errors/index.ts';

/**
 * Reads a request or response body, refusing more than `maxBytes` whatever Content-Length
 * claims: the declared length is checked first, then the bytes actually read.
 */
export async function readBytesLimited(message: Request | Response, maxBytes: number, what = 'request body'): Promise<Buffer> {
  const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `${what} is larger than ${maxBytes} bytes`);
  const declared = Number(message.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await message.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!message.body) return Buffer.alloc(0);
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** A request body as text, at most `maxBytes`. */
export async function readBodyLimited(request: Request, maxBytes: number): Promise<string> {
  return (await readBytesLimited(request, maxBytes)).toString('utf8');
}
