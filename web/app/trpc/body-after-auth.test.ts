import { testServices, useTestDatabase } from '@service/core/testing';
import type { Services } from '@service/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { handleTrpc } from './handler.server.ts';

const t = useTestDatabase();
let services: Services;

beforeAll(() => {
  services = testServices(t.db);
});

/** A body that never ends and counts how often the server asked it for bytes. */
function endlessBody() {
  const state = { pulls: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls++;
        controller.enqueue(new TextEncoder().encode('{"name":"' + 'x'.repeat(64 * 1024)));
        return new Promise(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

describe('tRPC reads a body only after the session (issue 11, item 6)', () => {
  it('refuses an anonymous mutation without reading its body', async () => {
    const { stream, state } = endlessBody();
    const request = new Request('http://127.0.0.1:3999/api/trpc/a2a.clients.register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const response = await Promise.race([handleTrpc(request, services), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 3_000))]);
    expect(response).not.toBe('hung');
    expect((response as Response).status).toBe(401);
    expect(state.pulls).toBe(0);
  });
});
