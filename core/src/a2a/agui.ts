import { EventType, type BaseEvent } from '@ag-ui/core';
import type { A2aEvent, InterruptPayload } from './protocol.ts';

/**
 * The AG-UI multiplex: with SERVICE_AGUI_EXTERNAL_ENABLED=true, a client that names this
 * extension in its `A2A-Extensions` request header gets, on each A2A event of the stream, the
 * same moment as AG-UI events in `metadata.agui`. Clients that only speak A2A never see them.
 */
export const AGUI_EXTENSION_URI = 'urn:service:a2a-extension:ag-ui-multiplex:v1';

export function wantsAgui(request: Request): boolean {
  return (request.headers.get('a2a-extensions') ?? '').split(',').map((s) => s.trim()).includes(AGUI_EXTENSION_URI);
}

const textOf = (parts: { kind: string; text?: string }[] | undefined) => (parts ?? []).flatMap((p) => (p.kind === 'text' && p.text ? [p.text] : [])).join('\n');

/** AG-UI events for one A2A event (threadId = A2A contextId, runId = A2A task id). */
export function toAgui(event: A2aEvent, seq: number): BaseEvent[] {
  const timestamp = Date.now();
  switch (event.kind) {
    case 'task':
      return [{ type: EventType.RUN_STARTED, timestamp, threadId: event.contextId, runId: event.id } as BaseEvent];
    case 'artifact-update': {
      const messageId = `${event.taskId}:${event.artifact.artifactId}`;
      return [
        { type: EventType.TEXT_MESSAGE_START, timestamp, messageId, role: 'assistant' } as BaseEvent,
        { type: EventType.TEXT_MESSAGE_CONTENT, timestamp, messageId, delta: textOf(event.artifact.parts) || ' ' } as BaseEvent,
        { type: EventType.TEXT_MESSAGE_END, timestamp, messageId } as BaseEvent,
      ];
    }
    case 'status-update': {
      const base = { timestamp, threadId: event.contextId, runId: event.taskId };
      const said = textOf(event.status.message?.parts);
      switch (event.status.state) {
        case 'completed':
          return [{ type: EventType.RUN_FINISHED, ...base, result: said, outcome: { type: 'success' } } as BaseEvent];
        case 'canceled':
          return [{ type: EventType.RUN_FINISHED, ...base, outcome: { type: 'cancelled' } } as BaseEvent];
        case 'failed':
        case 'rejected':
          return [{ type: EventType.RUN_ERROR, timestamp, message: said || `run ${event.status.state}`, code: event.status.state } as BaseEvent];
        case 'input-required': {
          const interrupt = (event.metadata as { interrupt?: InterruptPayload } | undefined)?.interrupt;
          const interrupts = [{ id: interrupt?.screenId ?? `input-${seq}`, reason: 'human_input', message: interrupt?.title ?? said, ...(interrupt ? { responseSchema: interrupt.schema } : {}) }];
          return [{ type: EventType.RUN_FINISHED, ...base, outcome: { type: 'interrupt', interrupts } } as BaseEvent];
        }
        default: {
          const calling = /^Calling (@\S+)$/.exec(said);
          if (calling) {
            const toolCallId = `${event.taskId}:${seq}`;
            return [
              { type: EventType.TOOL_CALL_START, timestamp, toolCallId, toolCallName: calling[1]! } as BaseEvent,
              { type: EventType.TOOL_CALL_END, timestamp, toolCallId } as BaseEvent,
            ];
          }
          return [{ type: EventType.STATE_DELTA, timestamp, delta: [{ op: 'replace', path: '/status', value: event.status.state }] } as BaseEvent];
        }
      }
    }
    default:
      return [];
  }
}

/** The A2A event with its AG-UI counterparts added to `metadata.agui`. */
export function withAgui(event: A2aEvent, seq: number): A2aEvent {
  return { ...event, metadata: { ...(event.metadata ?? {}), agui: toAgui(event, seq) } } as A2aEvent;
}
