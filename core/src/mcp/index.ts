export { buildMcpServer } from './build-server.ts';
export { createMcpHttpHandler } from './http-handler.ts';
