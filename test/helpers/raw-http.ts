import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request over node:http, for what fetch will not do: choose the local address (a
 * loopback alias such as 127.0.0.2 is another client to the server), send a browser's Origin or
 * Sec-Fetch-Site headers, or declare a body longer than the one sent.
 */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    localAddress?: string;
    /** Send this much of `body`, leave the request open and resolve with the answer that comes anyway. */
    partialBody?: boolean;
    timeoutMs?: number;
  } = {},
): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    // Keep-alive, as browsers: a server may answer before it has read the whole body and
    // discard the rest, which a `Connection: close` request would turn into a reset.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // A body's length is declared, as browsers always do (a test may declare more than it sends).
    const declared = options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) };
    const request = http.request(url, {
      method: options.method ?? 'GET',
      headers: { ...declared, ...options.headers },
      agent,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    request.on('close', () => agent.destroy());
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 30_000} ms`));
    }, options.timeoutMs ?? 30_000);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', () => undefined);
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (options.partialBody) request.destroy();
        agent.destroy();
      });
    });
    if (options.body !== undefined) request.write(options.body);
    if (!options.partialBody) request.end();
  });
}
