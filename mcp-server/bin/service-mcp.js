#!/usr/bin/env node
// The MCP server runs in this very process (tsx compiles its TypeScript as it loads): an MCP
// client's stdin, signals and exit status reach the server itself, with no wrapper in between.
await import('tsx');
await import('../src/main.ts');
