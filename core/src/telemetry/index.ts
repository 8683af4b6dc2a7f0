export { activeContext, contextFromHeaders, contextFromTraceparent, currentTraceparent, errorType, failSpan, inContext, inSpan, SpanKind, startSpan, traceIdsForLog, withTraceHeaders, type SpanOptions } from './tracing.ts';
export { observeHealth, recordHttpServerRequest, recordJobFailure, recordLlmCall, recordRpcServerCall, recordRunAppend, streamOpened } from './metrics.ts';
