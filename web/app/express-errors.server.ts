import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from '@service/core/log';

/** The status Express or serve-static gave an error (400 for an address that does not decode), else 500. */
function statusOf(error: unknown): number {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/**
 * Express's last handler: its default answers an error with a page holding the stack and the
 * checkout's absolute paths whenever NODE_ENV is not `production`. A client's mistake gets its
 * status in plain words and is not logged; anything else is a 500, logged once.
 */
export function answerExpressError(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const status = statusOf(error);
    if (status >= 500) logger.error('admin request failed', { error, path: req.path });
    if (res.headersSent) return void req.socket.destroy();
    res
      .status(status)
      .set({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
      .send(`${STATUS_CODES[status] ?? 'Error'}\n`);
  };
}
