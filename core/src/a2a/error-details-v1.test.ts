import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/index.ts';
import { rpcErrorV1 } from './error-details-v1.ts';

describe('rpcErrorV1', () => {
  it("names the service's code as the reason, never a raw error's own code or address", () => {
    // As driver 6.x lets it surface: the socket's own error, thrown from the driver's files.
    const driverError = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
    driverError.stack = `Error: This socket has been ended by the other party\n    at write (/app/node_modules/mongodb/lib/cmap/connection.js:1:1)`;
    const expected = {
      code: -32059,
      message: 'The database is unavailable; try again shortly',
      data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'DEPENDENCY_UNAVAILABLE', domain: 'agents.example' }],
    };
    expect(rpcErrorV1(1, driverError, { serviceDomain: 'agents.example' }).error).toEqual(expected);
    const wrapped = new DomainError('DEPENDENCY_UNAVAILABLE', 'The database is unavailable; try again shortly', { cause: driverError });
    expect(rpcErrorV1(1, wrapped, { serviceDomain: 'agents.example' }).error).toEqual(expected);
    const raw = rpcErrorV1(2, Object.assign(new Error('boom at 10.0.0.7'), { code: 'ECONNRESET' }), { serviceDomain: 'agents.example' });
    expect(JSON.stringify(raw)).not.toMatch(/ECONNRESET|10\.0\.0\.7/);
    expect(raw.error.data[0]).toMatchObject({ reason: 'INTERNAL_ERROR', domain: 'a2a-protocol.org' });
  });
});
