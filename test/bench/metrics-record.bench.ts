import { bench, describe } from 'vitest';
import { startMetrics, type Metrics } from '@service/core/metrics-export';
import { recordHttpServerRequest } from '@service/core/telemetry';

/**
 * What recording one seam request costs, in one process: with metrics off (the API's no-op
 * meter, the default) against an empty function, and with a meter provider registered (the
 * Prometheus scrape's reader). The first ratio is the claim "free while off".
 */
let metrics: Metrics | null = null;
const request = { method: 'POST', route: '/api/a2a', status: 200 };
/** A function of the same shape that does nothing, kept from being inlined away by being reassignable. */
let nothing = (_request: typeof request, _seconds: number): void => undefined;
export const replaceNothing = (next: typeof nothing) => (nothing = next);

describe('record one seam request', () => {
  bench('baseline: an empty call', () => {
    nothing(request, 0.012);
  });
  bench('metrics off (API no-op)', () => {
    recordHttpServerRequest(request, 0.012);
  });
  bench(
    'metrics on (SDK histogram, three attributes)',
    () => {
      recordHttpServerRequest(request, 0.012);
    },
    {
      setup: () => {
        metrics ??= startMetrics({ env: {}, prometheus: true, serviceName: 'bench', version: '0', role: 'bench' });
      },
      teardown: async () => {
        await metrics?.shutdown();
        metrics = null;
      },
    },
  );
});
