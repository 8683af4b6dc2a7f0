export { buildMcpServer } from './build-server.ts';
export { createMcpHttpHandler } from './http-handler.ts';
export { hostnameOf, mcpAllowedHostnames } from './allowed-hosts.ts';
