import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { foundOr404 } from './detail-loader.server.ts';

async function thrownBy(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => 'resolved', (error: unknown) => error);
}

describe('a detail page loader', () => {
  it('answers what it found', async () => {
    expect(await foundOr404(Promise.resolve({ id: 'a' }), 'No such job')).toEqual({ id: 'a' });
  });

  it.each([
    ['nothing found', () => Promise.resolve(null)],
    ['NOT_FOUND', () => Promise.reject(new TRPCError({ code: 'NOT_FOUND', message: 'Run not found' }))],
    ['a malformed id (the input check)', () => Promise.reject(new TRPCError({ code: 'BAD_REQUEST', message: 'not an id' }))],
  ])('is a 404 page for %s', async (_, load) => {
    const thrown = await thrownBy(foundOr404(load(), 'No such job'));
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(404);
    expect(await (thrown as Response).text()).toBe('No such job');
  });

  it('lets any other failure through to the error boundary', async () => {
    const outage = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'boom' });
    expect(await thrownBy(foundOr404(Promise.reject(outage), 'No such job'))).toBe(outage);
  });
});
