/**
 * A loopback HTTP proxy for running the A2A TCK's HTTP+JSON client against the service.
 *
 * The kit's REST client builds every URL as `urljoin(<interface url>, "/message:send")`
 * (tck/transport/rest_client.py), and a reference starting with `/` replaces the interface URL's
 * path: against `http://host/api/a2a` it calls `http://host/message:send`. The spec's AgentInterface
 * `url` is "the URL where this interface is available" (a2a.proto), so the paths of §11 belong
 * under it. This proxy puts them back there: the §11 resources the kit asks for at the root
 * (`/message:…`, `/tasks…`, `/extendedAgentCard`) are forwarded under `/api/a2a`; every other path
 * (the card, the token endpoint, `/api/…`, `/a2a/…`) is forwarded unchanged. Bodies and answers are
 * streamed both ways (SSE included).
 *
 * One more adaptation, for the kit's gRPC client: it reads an interface URL with `urlparse` and
 * takes its hostname and port (tck/transport/grpc_client.py), so the card's gRPC target
 * `127.0.0.1:<port>` (a gRPC target has no scheme; the SDK clients dial it as is, ADR 0032) reads
 * as host `None`. In the cards it passes on, the proxy writes that target as `grpc://<host>:<port>`,
 * the kit's own form for a plaintext gRPC endpoint. Nothing else in the card changes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const ROOT_RESOURCES = /^\/(message:|tasks(\/|:|\?|$)|extendedAgentCard(\?|$))/;

export function rewrittenPath(path: string, base = '/api/a2a'): string {
  return ROOT_RESOURCES.test(path) ? `${base}${path}` : path;
}

const CARD_PATH = /\/\.well-known\/agent-card\.json$/;

/** The card with each GRPC interface's bare `host:port` written as `grpc://host:port`. */
export function cardForKit(card: { supportedInterfaces?: { url: string; protocolBinding: string }[] }): unknown {
  const supportedInterfaces = card.supportedInterfaces?.map((i) => (i.protocolBinding === 'GRPC' && !i.url.includes('://') ? { ...i, url: `grpc://${i.url}` } : i));
  return supportedInterfaces ? { ...card, supportedInterfaces } : card;
}

export interface RootProxy {
  url: string;
  /** Where requests go (the service's own URL); set once the service listens. */
  setTarget(target: string): void;
  close(): Promise<void>;
}

export async function startRootProxy(): Promise<RootProxy> {
  let target: URL | null = null;
  const server = http.createServer((req, res) => {
    if (!target) {
      res.writeHead(503).end('no target yet');
      return;
    }
    const isCard = req.method === 'GET' && CARD_PATH.test((req.url ?? '').split('?')[0]!);
    // The card is read here, so it is asked for unencoded.
    const headers = isCard ? { ...req.headers, 'accept-encoding': 'identity' } : req.headers;
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: rewrittenPath(req.url ?? '/'), headers },
      (answer) => {
        if (isCard && answer.statusCode === 200) {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const body = JSON.stringify(cardForKit(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
            const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
            delete headers['content-encoding'];
            delete headers.etag;
            res.writeHead(200, headers).end(body);
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setTarget: (url) => {
      target = new URL(url);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
