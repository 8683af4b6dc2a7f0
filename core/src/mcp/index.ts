export { buildMcpServer, primitiveInputSchema } from './build-server.ts';
export { createMcpHttpHandler, mcpUnavailableResponse } from './http-handler.ts';
export { hostnameOf, mcpAllowedHostnames } from './allowed-hosts.ts';
export { connectStdio } from './stdio.ts';
