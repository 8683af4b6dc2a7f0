import { json } from '../http/index.ts';
import type { Database } from '../db/index.ts';

/** `GET /healthz`: 200 when the database answers a ping, 503 when it does not. */
export function createHealthzHandler(deps: { database: Database; version: string }) {
  return async (_request: Request): Promise<Response> => {
    const started = Date.now();
    const up = await deps.database.ping();
    return json(
      { status: up ? 'ok' : 'degraded', version: deps.version, checks: { database: { status: up ? 'up' : 'down', latencyMs: Date.now() - started } } },
      { status: up ? 200 : 503 },
    );
  };
}
