export { createRetention, RETENTION_BATCH, type Retention, type RetentionPolicy, type SweepResult } from './retention.ts';
