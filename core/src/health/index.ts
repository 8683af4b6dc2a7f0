export { createHealthzHandler } from './healthz-handler.ts';
