import net from 'node:net';

/** Commands that are connection upkeep, not work a request asked for. */
const UPKEEP = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'saslStart', 'saslContinue', 'endSessions', 'buildInfo', 'buildinfo', 'getMore', 'killCursors']);

/**
 * A TCP proxy in front of a MongoDB-wire server that counts the commands passing through by
 * name (OP_MSG, opcode 2013: the first key of the body document). Give the service its URL
 * instead of the server's to see what each request costs in database round trips.
 */
export async function startWireCounter(target: { host: string; port: number }) {
  const counts = new Map<string, number>();
  /** When each command went out and its reply came back (performance.now()), for time breakdowns. */
  const spans: { start: number; end: number }[] = [];
  const open = new Map<string, number>();
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const connection = connections++;
    let pending = Buffer.alloc(0);
    let replies = Buffer.alloc(0);
    upstream.on('data', (chunk) => {
      replies = Buffer.concat([replies, chunk]);
      while (replies.length >= 16) {
        const length = replies.readInt32LE(0);
        if (replies.length < length) break;
        const key = `${connection}:${replies.readInt32LE(8)}`;
        const start = open.get(key);
        if (start !== undefined) {
          spans.push({ start, end: performance.now() });
          open.delete(key);
        }
        replies = replies.subarray(length);
      }
    });
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 16) {
        const length = pending.readInt32LE(0);
        if (pending.length < length) break;
        const opCode = pending.readInt32LE(12);
        open.set(`${connection}:${pending.readInt32LE(4)}`, performance.now());
        // OP_MSG: header(16) flagBits(4) kind-0 section byte, then the body: int32 size, type byte, key.
        if (opCode === 2013 && pending[20] === 0) {
          const keyStart = 21 + 5;
          const keyEnd = pending.indexOf(0, keyStart);
          const name = pending.subarray(keyStart, keyEnd).toString('utf8');
          counts.set(name, (counts.get(name) ?? 0) + 1);
        }
        pending = pending.subarray(length);
      }
    });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    /** How long, between `from` and `to`, at least one command was waiting for the server. */
    busyBetween(from: number, to: number): number {
      const inside = spans.filter((s) => s.end > from && s.start < to).map((s) => ({ start: Math.max(s.start, from), end: Math.min(s.end, to) })).sort((a, b) => a.start - b.start);
      let busy = 0;
      let reach = from;
      for (const s of inside) {
        if (s.end <= reach) continue;
        busy += s.end - Math.max(s.start, reach);
        reach = s.end;
      }
      return busy;
    },
    /** Work commands seen so far, by name. */
    snapshot: () => new Map([...counts].filter(([name]) => !UPKEEP.has(name))),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The difference between two snapshots: what happened in between. */
export function commandsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([name, count]) => [name, count - (before.get(name) ?? 0)] as const).filter(([, count]) => count > 0));
}
