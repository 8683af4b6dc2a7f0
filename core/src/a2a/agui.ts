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
          const interrupts = [{
            id: interrupt?.screenId ?? `input-${seq}`,
            // A pause before a tool call is an approval; AG-UI clients see the call it is about.
            reason: interrupt?.tool ? 'tool_approval' : 'human_input',
            message: interrupt?.title ?? said,
            ...(interrupt ? { responseSchema: interrupt.schema } : {}),
            ...(interrupt?.tool ? { toolCallId: `${run.id}:${interrupt.tool.callId}`, metadata: { tool: interrupt.tool.tool, arguments: interrupt.tool.arguments, ...(interrupt.tool.changes ? { changes: interrupt.tool.changes } : {}) } } : {}),
          }];
          // The call an approval is about is shown before the interrupt that names it (its result comes once it is decided).
          return [...(interrupt?.tool ? toolCallEvents(`${run.id}:${interrupt.tool.callId}`, interrupt.tool.tool, interrupt.tool.arguments, timestamp) : []), { type: EventType.RUN_FINISHED, ...base, outcome: { type: 'interrupt', interrupts } } as BaseEvent];
        }
        default: {
          // A tool call of an LLM step: started (its name and arguments), then its result.
          const tool = event.tool;
          // A call that was approved was shown with its approval's interrupt already.
          if (tool?.phase === 'call') return tool.approval ? [] : toolCallEvents(`${run.id}:${tool.callId}`, tool.tool, tool.arguments, timestamp);
          if (tool?.phase === 'result') {
            const content = tool.outcome === 'ok' ? JSON.stringify(tool.output ?? null) : tool.outcome === 'denied' ? JSON.stringify({ denied: true, ...(tool.approval?.reason ? { reason: tool.approval.reason } : {}) }) : JSON.stringify({ error: tool.error ?? 'failed' });
            return [{ type: EventType.TOOL_CALL_RESULT, timestamp, messageId: `${run.id}:${tool.callId}:result`, toolCallId: `${run.id}:${tool.callId}`, content, role: 'tool' } as BaseEvent];
          }
          const calling = /^Calling (@\S+)$/.exec(said);
          if (calling) {
            const toolCallId = `${run.id}:${seq}`;
            return [
              { type: EventType.TOOL_CALL_START, timestamp, toolCallId, toolCallName: calling[1]! } as BaseEvent,
              { type: EventType.TOOL_CALL_END, timestamp, toolCallId } as BaseEvent,
            ];
          }
          // `add` sets the member whether or not the client's state has it yet (a `replace` of a missing one fails there).
          return [{ type: EventType.STATE_DELTA, timestamp, delta: [{ op: 'add', path: '/status', value: event.status.state }] } as BaseEvent];
        }
      }
    }
    default:
      return [];
  }
}

function toolCallEvents(toolCallId: string, name: string, args: unknown, timestamp: number): BaseEvent[] {
  return [
    { type: EventType.TOOL_CALL_START, timestamp, toolCallId, toolCallName: name } as BaseEvent,
    { type: EventType.TOOL_CALL_ARGS, timestamp, toolCallId, delta: JSON.stringify(args ?? {}) } as BaseEvent,
    { type: EventType.TOOL_CALL_END, timestamp, toolCallId } as BaseEvent,
  ];
}

/** A wire event with the AG-UI counterparts of `event` added to its `metadata.agui`. */
export function withAgui<T extends { metadata?: Metadata }>(wire: T, event: VisibleRunEvent, seq: number, run: { id: string; contextId: string }): T {
  return { ...wire, metadata: { ...(wire.metadata ?? {}), agui: toAgui(event, seq, run) } };
}
