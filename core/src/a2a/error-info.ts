/** The typed error details of A2A 1.0 (spec §9.5, §10.6, §11.6), as every binding writes and the outbound client reads them. */
export const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
/** The ErrorInfo domain of the reasons JSON-RPC and A2A define. */
export const A2A_DOMAIN = 'a2a-protocol.org';

/** The A2A error types' JSON-RPC codes and their ErrorInfo reasons (spec §5.4). */
export const A2A_REASONS: Readonly<Record<number, string>> = {
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32003]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32006]: 'INVALID_AGENT_RESPONSE',
  [-32007]: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  [-32008]: 'EXTENSION_SUPPORT_REQUIRED',
  [-32009]: 'VERSION_NOT_SUPPORTED',
};

/** The same table read the other way: an A2A reason's JSON-RPC code. */
export const A2A_CODE_OF_REASON: Readonly<Record<string, number>> = Object.fromEntries(Object.entries(A2A_REASONS).map(([code, reason]) => [reason, Number(code)]));
