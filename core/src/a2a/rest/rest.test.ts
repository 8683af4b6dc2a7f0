import { describe, expect, it } from 'vitest';
import { DomainError } from '../../errors/index.ts';
import { restErrorBody } from './errors.ts';
import { withJsonNames } from './proto-names.ts';
import { restOperationOf } from './routes.ts';

describe('restOperationOf', () => {
  it('reads the operation, the task and the allowed methods from the path under the base', () => {
    expect(restOperationOf('/message:send')).toEqual({ operation: 'send', allow: ['POST'] });
    expect(restOperationOf('/tasks')).toEqual({ operation: 'list', allow: ['GET'] });
    expect(restOperationOf('/tasks/t-1')).toEqual({ operation: 'get', task: 't-1', allow: ['GET'] });
    expect(restOperationOf('/tasks/t-1:cancel')).toEqual({ operation: 'cancel', task: 't-1', allow: ['POST'] });
    expect(restOperationOf('/tasks/t%3A1:subscribe')).toEqual({ operation: 'subscribe', task: 't:1', allow: ['GET', 'POST'] });
    expect(restOperationOf('/tasks/t-1/pushNotificationConfigs')).toEqual({ operation: 'push', task: 't-1', allow: ['GET', 'POST'] });
    expect(restOperationOf('/tasks/t-1/pushNotificationConfigs/c%2F1')).toEqual({ operation: 'push', task: 't-1', config: 'c/1', allow: ['GET', 'DELETE'] });
    expect(restOperationOf('/extendedAgentCard')).toMatchObject({ operation: 'card' });
  });

  it('names nothing for other paths or an id that does not decode', () => {
    for (const path of ['/message:other', '/tasks/t-1/other', '/tasks/%E0%A4%A', '/other/t-1', '/tasks/t-1/pushNotificationConfigs/c/d']) expect(restOperationOf(path)).toBeNull();
  });
});

describe('restErrorBody', () => {
  it('maps the A2A errors to the statuses of spec §5.4 with an ErrorInfo naming each', () => {
    const cases = [
      ['NOT_FOUND', 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
      ['TASK_NOT_CANCELABLE', 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
      ['PUSH_NOTIFICATION_NOT_SUPPORTED', 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
      ['UNSUPPORTED_OPERATION', 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
      ['VERSION_NOT_SUPPORTED', 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    ] as const;
    for (const [code, http, status, reason] of cases) {
      expect(restErrorBody(new DomainError(code, 'why'))).toEqual({
        http,
        body: { error: { code: http, status, message: 'why', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }] } },
      });
    }
  });

  it('gives invalid params a BadRequest, keeps the service’s other statuses, and hides internal messages', () => {
    const invalid = restErrorBody(new DomainError('VALIDATION_FAILED', 'Invalid params', { details: [{ path: 'message.parts', reason: 'too few' }] }));
    expect(invalid).toEqual({ http: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid params', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.parts', description: 'too few' }] }] } } });
    expect(restErrorBody(new DomainError('FORBIDDEN', 'no')).body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', details: [] });
    expect(restErrorBody(new DomainError('DEPENDENCY_UNAVAILABLE', 'down')).body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(restErrorBody(new Error('secret detail')).body.error).toEqual({ code: 500, status: 'INTERNAL', message: 'Internal error', details: [] });
  });
});

describe('withJsonNames', () => {
  it('reads proto field names as JSON names at every depth, the JSON name winning when both are sent', () => {
    expect(withJsonNames({ message: { message_id: 'm', messageId: 'wins', reference_task_ids: ['t'], parts: [{ media_type: 'text/plain' }] }, configuration: { history_length: 2 } })).toEqual({
      message: { messageId: 'wins', referenceTaskIds: ['t'], parts: [{ mediaType: 'text/plain' }] },
      configuration: { historyLength: 2 },
    });
  });

  it('keeps Struct and Value fields (metadata, a part’s data) as sent', () => {
    const body = { metadata: { trace_id: 1 }, message: { parts: [{ data: { user_name: 'x' }, metadata: { a_b: [{ c_d: 1 }] } }] } };
    expect(withJsonNames(body)).toEqual(body);
  });
});
