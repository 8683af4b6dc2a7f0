import { randomUUID } from 'node:crypto';
import { AbstractAgent, type BaseEvent, type RunAgentInput } from '@ag-ui/client';
import { Observable } from 'rxjs';
import { readSseFrames } from './sse.ts';

const AGUI_EXTENSION = 'urn:service:a2a-extension:ag-ui-multiplex:v1';

/**
 * An `@ag-ui/client` agent over this service's AG-UI multiplex: a run sends the last user message
 * with A2A `message/stream` (v0.3) asking for the multiplex, and emits the AG-UI events carried in
 * each streamed event's `metadata.agui`, so the client's own verifier and state reducer read them.
 * A run with `resume` answers the open interrupt at `/api/a2a/resume`, then follows the task.
 */
export class A2aMultiplexAgent extends AbstractAgent {
  /** The A2A task of the last run (its AG-UI `runId`). */
  taskId: string | null = null;
  /** Every AG-UI event the runs emitted, in order. */
  readonly seen: BaseEvent[] = [];

  constructor(private readonly options: { baseUrl: string; token: string; skillId: string }) {
    super();
  }

  override run(input: RunAgentInput): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) => {
      this.stream(input)
        .then((events) => {
          for (const event of events) {
            this.seen.push(event);
            subscriber.next(event);
          }
          subscriber.complete();
        })
        .catch((error: unknown) => subscriber.error(error));
    });
  }

  private async stream(input: RunAgentInput): Promise<BaseEvent[]> {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${this.options.token}`, 'a2a-extensions': AGUI_EXTENSION };
    const rpc = (method: string, params: unknown) => fetch(`${this.options.baseUrl}/api/a2a`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }) });
    let response: Response;
    const [resume] = input.resume ?? [];
    if (resume && this.taskId) {
      const answered = await fetch(`${this.options.baseUrl}/api/a2a/resume`, { method: 'POST', headers, body: JSON.stringify({ runId: this.taskId, resume }) });
      if (answered.status !== 202) throw new Error(`resume answered ${answered.status}: ${await answered.text()}`);
      response = await rpc('tasks/resubscribe', { id: this.taskId });
    } else {
      const text = [...input.messages].reverse().find((message) => message.role === 'user')?.content;
      response = await rpc('message/stream', { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], metadata: { skillId: this.options.skillId } } });
    }
    const frames = await readSseFrames(response);
    const events: BaseEvent[] = [];
    for (const frame of frames) {
      const result = (frame.data as { result?: { id?: string; taskId?: string; metadata?: { agui?: BaseEvent[] } } }).result;
      this.taskId ??= result?.taskId ?? result?.id ?? null;
      events.push(...(result?.metadata?.agui ?? []));
    }
    return events;
  }
}
