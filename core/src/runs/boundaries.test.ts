import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Every module specifier a file imports or re-exports. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm), ...source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1]!);
}

describe('the run engine owns its model (ADR 0019)', () => {
  it('imports nothing from a protocol: runs/ reaches no a2a/, mcp/ or widget/ module', () => {
    const reaching = readdirSync(here)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .flatMap((name) => importsOf(path.join(here, name)).filter((spec) => /^\.\.\/(a2a|mcp|widget)\//.test(spec)).map((spec) => `${name} → ${spec}`));
    expect(reaching).toEqual([]);
  });
});
