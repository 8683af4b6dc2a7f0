import type { Services } from '@service/core';

declare module '@remix-run/node' {
  interface AppLoadContext {
    services: Services;
    /** The client's address (server.ts: the peer, or X-Forwarded-For behind a trusted proxy): what sign-in throttling counts per client. */
    clientAddress?: string;
    /** This response's CSP nonce (server.ts): every inline script the page renders carries it. */
    cspNonce?: string;
  }
}

export {};

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true;
  }
}
