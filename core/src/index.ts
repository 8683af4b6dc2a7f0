export { createServices, type Services } from './services.ts';
export { SERVICE_VERSION } from './version.ts';
