import type { VisibleRunEvent } from '../runs/index.ts';

/**
 * Tool calls in detail: a client that names this extension in its `A2A-Extensions` request header
 * gets, on each status update of a tool call, a data part with the call (`toolCall`: the tool and
 * its arguments) or its result (`toolResult`: the outcome and what the tool answered). Every
 * client sees the status text naming the tool ("Calling cms_b_post_get"); only those that ask get
 * the arguments and results.
 */
export const TOOL_CALLS_EXTENSION_URI = 'urn:service:a2a-extension:tool-calls:v1';

export const TOOL_CALLS_EXTENSION = {
  uri: TOOL_CALLS_EXTENSION_URI,
  description: 'Each tool call of an agent as a data part of its status update (toolCall: tool and arguments; toolResult: outcome and result); request it with the A2A-Extensions header',
  required: false,
};

/** Whether a request's `A2A-Extensions` value (HTTP header or gRPC metadata) names the extension. */
export function wantsToolDetails(extensions: string | null | undefined): boolean {
  return (extensions ?? '').split(',').map((s) => s.trim()).includes(TOOL_CALLS_EXTENSION_URI);
}

/** The event with its tool call as a data part of the status message (other events as they are). */
export function withToolDetails(event: VisibleRunEvent): VisibleRunEvent {
  if (event.type !== 'status' || !event.tool || !event.status.message) return event;
  const tool = event.tool;
  const data =
    tool.phase === 'call'
      ? { toolCall: { id: tool.callId, tool: tool.tool, kind: tool.kind, arguments: tool.arguments, ...(tool.approval ? { approval: tool.approval } : {}) } }
      : {
          toolResult: {
            id: tool.callId,
            tool: tool.tool,
            kind: tool.kind,
            outcome: tool.outcome,
            ...(tool.output !== undefined ? { output: tool.output } : {}),
            ...(tool.error ? { error: tool.error } : {}),
            durationMs: tool.durationMs,
            ...(tool.approval ? { approval: tool.approval } : {}),
          },
        };
  return { ...event, status: { ...event.status, message: { ...event.status.message, parts: [...event.status.message.parts, { type: 'data', data }] } } };
}
