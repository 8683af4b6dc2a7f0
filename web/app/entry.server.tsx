import { PassThrough } from 'node:stream';
import type { AppLoadContext, EntryContext } from '@remix-run/node';
import { createReadableStreamFromReadable } from '@remix-run/node';
import { RemixServer } from '@remix-run/react';
import { isbot } from 'isbot';
import { renderToPipeableStream } from 'react-dom/server';
import { NonceContext } from './nonce.ts';

const ABORT_DELAY = 5_000;

/**
 * Remix's default Node entry, plus the response's CSP nonce (made in server.ts, next to the
 * Content-Security-Policy header): React's own inline scripts, Remix's hydration and streaming
 * scripts and every `<Scripts>`/`<ScrollRestoration>` in root.tsx carry it.
 */
export default function handleRequest(request: Request, responseStatusCode: number, responseHeaders: Headers, remixContext: EntryContext, loadContext: AppLoadContext) {
  const nonce = loadContext.cspNonce;
  const waitForAll = isbot(request.headers.get('user-agent') ?? '') || remixContext.isSpaMode;
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const ready = () => {
      shellRendered = true;
      const body = new PassThrough();
      responseHeaders.set('Content-Type', 'text/html');
      resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
      pipe(body);
    };
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        ...(waitForAll ? { onAllReady: ready } : { onShellReady: ready }),
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors of the initial shell reject and are logged by Remix; later ones only here.
          if (shellRendered) console.error(error);
        },
      },
    );
    setTimeout(abort, ABORT_DELAY);
  });
}
