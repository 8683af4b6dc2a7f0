import { traceIdsForLog } from '../telemetry/index.ts';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names whose values are never written, whatever logs them. */
const SECRET_FIELD = /(pass(word)?|secret|token|key|authorization|cookie|credential)/i;

export interface LogRecord {
  level: LogLevel;
  message: string;
  fields: LogFields;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** `stderr` sends every line to stderr (for processes whose stdout is a protocol, like MCP stdio). */
  stream?: 'split' | 'stderr';
  sink?: (record: LogRecord) => void;
  base?: LogFields;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVELS[options.level ?? 'info'];
  const sink = options.sink ?? (options.stream === 'stderr' ? writeStderr : writeLine);
  const base = options.base ?? {};
  const emit = (level: LogLevel) => (message: string, fields: LogFields = {}) => {
    if (LEVELS[level] < threshold) return;
    // While a span records, the line names it (trace_id, span_id): a log line leads to its trace.
    sink({ level, message, fields: redact({ ...base, ...traceIdsForLog(), ...fields }) });
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
  };
}

/** A logger that keeps its records in memory, for tests that assert on what was logged. */
export function createMemoryLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  return Object.assign(createLogger({ level: 'debug', sink: (r) => records.push(r) }), { records });
}

export function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(key)) out[key] = '[redacted]';
    else if (value instanceof Error) out[key] = serializeError(value);
    else out[key] = value;
  }
  return out;
}

function serializeError(error: Error): LogFields {
  const out: LogFields = { name: error.name, message: error.message };
  if ('code' in error) out.code = (error as { code: unknown }).code;
  if (error.stack) out.stack = error.stack;
  if (error.cause instanceof Error) out.cause = serializeError(error.cause);
  return out;
}

function writeStderr(record: LogRecord): void {
  process.stderr.write(format(record));
}

function format(record: LogRecord): string {
  return JSON.stringify({ time: new Date().toISOString(), level: record.level, msg: record.message, ...record.fields }) + '\n';
}

function writeLine(record: LogRecord): void {
  if (record.level === 'error' || record.level === 'warn') process.stderr.write(format(record));
  else process.stdout.write(format(record));
}
