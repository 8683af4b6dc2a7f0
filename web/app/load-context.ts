import type { Services } from '@service/core';

declare module '@remix-run/node' {
  interface AppLoadContext {
    services: Services;
  }
}

export {};

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true;
  }
}
