#!/usr/bin/env node
// The MCP server runs in this very process, from its build (`pnpm build` in the checkout; `pnpm
// start` and `pnpm test` build it too): an MCP client's stdin, signals and exit status reach the
// server itself, with no wrapper and no TypeScript loader in between.
import { existsSync } from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('service-mcp is not built: run `pnpm build` in the checkout, then start it again\n');
  process.exit(1);
}
await import(built.href);
