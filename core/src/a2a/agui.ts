import { EventType, type BaseEvent } from '@ag-ui/core';
import { textOf, type Metadata, type VisibleRunEvent } from '../runs/index.ts';

/**
 * The AG-UI multiplex: with SERVICE_AGUI_EXTERNAL_ENABLED=true, a client that names this
 * extension in its `A2A-Extensions` request header gets, on each A2A event of the stream, the
 * same moment as AG-UI events in `metadata.agui`. Clients that only speak A2A never see them.
 */
export const AGUI_EXTENSION_URI = 'urn:service:a2a-extension:ag-ui-multiplex:v1';

export function wantsAgui(request: Request): boolean {
  return (request.headers.get('a2a-extensions') ?? '').split(',').map((s) => s.trim()).includes(AGUI_EXTENSION_URI);
}

/** AG-UI events for one run event (threadId = the run's context, runId = the run). */
export function toAgui(event: VisibleRunEvent, seq: number, run: { id: string; contextId: string }): BaseEvent[] {
  const timestamp = Date.now();
  const base = { timestamp, threadId: run.contextId, runId: run.id };
  switch (event.type) {
    case 'created':
      return [{ type: EventType.RUN_STARTED, ...base } as BaseEvent];
    case 'artifact': {
      const messageId = `${run.id}:${event.artifact.id}`;
      return [
        { type: EventType.TEXT_MESSAGE_START, timestamp, messageId, role: 'assistant' } as BaseEvent,
        { type: EventType.TEXT_MESSAGE_CONTENT, timestamp, messageId, delta: textOf(event.artifact) || ' ' } as BaseEvent,
        { type: EventType.TEXT_MESSAGE_END, timestamp, messageId } as BaseEvent,
      ];
    }
    case 'status': {
      const said = textOf(event.status.message);
      switch (event.status.state) {
        case 'completed':
          return [{ type: EventType.RUN_FINISHED, ...base, result: said, outcome: { type: 'success' } } as BaseEvent];
        case 'canceled':
          return [{ type: EventType.RUN_FINISHED, ...base, outcome: { type: 'cancelled' } } as BaseEvent];
        case 'failed':
        case 'rejected':
          return [{ type: EventType.RUN_ERROR, timestamp, message: said || `run ${event.status.state}`, code: event.status.state } as BaseEvent];
        case 'input-required': {
          const interrupt = event.interrupt;
          const interrupts = [{ id: interrupt?.screenId ?? `input-${seq}`, reason: 'human_input', message: interrupt?.title ?? said, ...(interrupt ? { responseSchema: interrupt.schema } : {}) }];
          return [{ type: EventType.RUN_FINISHED, ...base, outcome: { type: 'interrupt', interrupts } } as BaseEvent];
        }
        default: {
          const calling = /^Calling (@\S+)$/.exec(said);
          if (calling) {
            const toolCallId = `${run.id}:${seq}`;
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

/** A wire event with the AG-UI counterparts of `event` added to its `metadata.agui`. */
export function withAgui<T extends { metadata?: Metadata }>(wire: T, event: VisibleRunEvent, seq: number, run: { id: string; contextId: string }): T {
  return { ...wire, metadata: { ...(wire.metadata ?? {}), agui: toAgui(event, seq, run) } };
}
