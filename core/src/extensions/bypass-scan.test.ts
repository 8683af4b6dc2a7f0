import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findVisibilityBypasses } from './bypass-scan.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixtureRoot = fileURLToPath(new URL('../../test-fixtures/bypass/', import.meta.url));
const SCANNED = ['core/src', 'web/app', 'mcp-server/src'];

describe('visibility filter bypass scan', () => {
  it('finds no production module that reads extensions or registry config around the filter', () => {
    expect(findVisibilityBypasses(repoRoot, SCANNED)).toEqual([]);
  });

  it('fails when a forbidden import or a direct query is added (fixture)', () => {
    const found = findVisibilityBypasses(fixtureRoot, SCANNED);
    expect(found.map((b) => `${b.file}:${b.line}`).sort()).toEqual([
      'core/src/marketplace/shortcut.ts:2',
      'core/src/marketplace/shortcut.ts:6',
      'core/src/marketplace/shortcut.ts:9',
      'web/app/routes/marketplace.tsx:3',
    ]);
    expect(found.map((b) => b.file)).not.toContain('core/src/extensions/reader.ts');
  });
});
