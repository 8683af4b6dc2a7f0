export { contextFromHeaders, contextFromTraceparent, currentTraceparent, failSpan, inContext, inSpan, SpanKind, startSpan, traceIdsForLog, withTraceHeaders } from './tracing.ts';
