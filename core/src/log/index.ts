export { createLogger, createMemoryLogger, redact, type Logger, type LogLevel, type LogFields, type LogRecord } from './logger.ts';
