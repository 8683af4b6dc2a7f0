import { describe, expect, it } from 'vitest';
import type { RunEvent, RunMessage, RunStatus, RunView } from '../runs/index.ts';
import { eventFrom03, eventTo03, messageFrom03, messageTo03, taskTo03 } from './compat/v03/protocol.ts';
import { eventFromV1, messageFromV1, messageToV1, streamResponseV1, taskToV1 } from './protocol-v1.ts';

/** The run model through each protocol version and back: what a peer sends us is what we stored. */
const run = { id: 'run-1', contextId: 'ctx-1' };
const message: RunMessage = {
  id: 'm-1',
  role: 'user',
  parts: [
    { type: 'text', text: 'hello', metadata: { lang: 'en' } },
    { type: 'data', data: { '': 1, 'a.b': { $x: true } } },
    { type: 'file', name: 'a.txt', mediaType: 'text/plain', bytes: 'aGVsbG8=' },
    { type: 'file', url: 'https://example.test/b.png' },
  ],
  metadata: { skillId: '@acme/a' },
};
const interrupt = { stepId: 'approval', screenId: 'approve', title: 'Approve', schema: { type: 'object', properties: { note: { type: 'string' } } } };
const pause: RunEvent = { type: 'status', final: true, interrupt, status: { state: 'input-required', timestamp: '2026-11-26T00:00:00.000Z', message: { id: 'm-2', role: 'agent', parts: [{ type: 'text', text: 'Approve' }] } } };

describe('the A2A codecs over the run model', () => {
  it('carries a message through v1.0 and v0.3 unchanged', () => {
    expect(messageFromV1(messageToV1(message) as never)).toEqual(message);
    expect(messageFrom03(messageTo03(message))).toEqual(message);
  });

  it('keeps any JSON value of a v1.0 data part; v0.3, which takes objects only, wraps the rest', () => {
    const list: RunMessage = { id: 'm', role: 'user', parts: [{ type: 'data', data: [1, 2] }] };
    expect(messageFromV1(messageToV1(list) as never).parts).toEqual([{ type: 'data', data: [1, 2] }]);
    expect(messageTo03(list).parts).toEqual([{ kind: 'data', data: { value: [1, 2] } }]);
  });

  it('shows a pause as an INTERRUPT in both versions (a data part and the metadata), and reads a peer\'s back into the pause', () => {
    const v1 = streamResponseV1(pause as never, run) as { statusUpdate: { status: { message: { parts: unknown[] } }; metadata: { interrupt: Record<string, unknown> } } };
    expect(v1.statusUpdate.metadata.interrupt).toMatchObject({ type: 'INTERRUPT', runId: 'run-1', screenId: 'approve', accepts: ['resume', 'values', 'text'] });
    expect(v1.statusUpdate.status.message.parts).toHaveLength(2);
    expect(eventFromV1(v1)).toEqual({ ...pause, interrupt: { ...interrupt, accepts: ['resume', 'values', 'text'], remoteRunId: 'run-1' } });

    const v03 = eventTo03(pause as never, run);
    expect(v03).toMatchObject({ kind: 'status-update', taskId: 'run-1', final: true, metadata: { interrupt: { type: 'INTERRUPT', screenId: 'approve' } } });
    expect(eventFrom03(v03)).toEqual({ ...pause, interrupt: { ...interrupt, accepts: ['resume', 'values', 'text'], remoteRunId: 'run-1' } });
  });

  it('writes a task in both versions from one view: history, artifacts, the pending pause', () => {
    const view = { ...run, agent: '@acme/a', state: 'input-required', status: (pause as { status: RunStatus }).status, lastSeq: 3, actorType: 'a2a', actorId: 'x', input: message, remote: null, createdAt: '', updatedAt: '', history: [(pause as { status: { message: RunMessage } }).status.message], artifacts: [{ id: 'art', parts: [{ type: 'text', text: 'out' }] }], interrupt, progress: { stepIndex: 1, outputs: {} }, tail: { seq: 3, state: 'input-required', generation: 0 } } as unknown as RunView;
    expect(taskToV1(view, { historyLength: 1 })).toMatchObject({ id: 'run-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history: [{ messageId: 'm-2' }], artifacts: [{ artifactId: 'art' }] });
    const task = taskTo03(view);
    expect(task.history!.map((m) => m.messageId)).toEqual(['m-1', 'm-2']);
    expect(task.status.message!.parts.at(-1)).toMatchObject({ kind: 'data', data: { interrupt: { screenId: 'approve' } } });
  });
});
