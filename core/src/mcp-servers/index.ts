// External MCP servers an admin registers, whose tools agents call (Streamable HTTP through the one outbound client).
export { createMcpServers, type McpListedTool, type McpServerAuthInput, type McpServerInput, type McpServers, type McpServerView } from './mcp-servers.ts';
