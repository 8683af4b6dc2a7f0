import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  url: string;
  /**
   * Holds back the answer to the next request whose method, path and body `match`, for `ms`
   * after the site answered it: resolves once the site has answered (the write is done there) and
   * the answer is being held, as a network would lose it.
   */
  holdNext(match: (request: { method: string; path: string; body: string }) => boolean, ms: number): Promise<void>;
  /** Every request that reached the site through the proxy: method, path, the Idempotency-Key header or MCP `_meta` key, if any. */
  requests: { method: string; path: string; key: string | null }[];
  close(): Promise<void>;
}

/**
 * A reverse proxy in front of a test site (WordPress, Drupal), so a test can hold a write's answer
 * back after the site has made it: the caller sees a call in flight while its effect is done.
 */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const requests: HoldingProxy['requests'] = [];
  let hold: { match: Parameters<HoldingProxy['holdNext']>[0]; ms: number; held: () => void } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      const meta = /"service\/idempotency-key"\s*:\s*"([^"]+)"/.exec(text);
      const key = (req.headers['idempotency-key'] as string | undefined) ?? meta?.[1] ?? null;
      requests.push({ method: req.method!, path: req.url!, key });
      const held = hold && hold.match({ method: req.method!, path: req.url!, body: text }) ? hold : null;
      if (held) hold = null;
      const headers = { ...req.headers, host: upstream.host };
      const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(parts));
          };
          if (!held) return send();
          held.held();
          setTimeout(send, held.ms);
        });
      });
      forward.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    holdNext: (match, ms) => new Promise<void>((resolve) => (hold = { match, ms, held: resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
