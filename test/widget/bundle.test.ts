import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createBundleHandler, WIDGET_BUNDLE_PATH } from '@service/core/widget';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const widgetDir = fileURLToPath(new URL('../../widget/', import.meta.url));

describe('bundle routes and the size budget', () => {
  it('serve the built IIFE with the spec\'s headers', async () => {
    const response = await createBundleHandler()();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    const body = await response.text();
    expect(body).toBe(readFileSync(WIDGET_BUNDLE_PATH, 'utf8'));
    expect(body.trimStart()).toMatch(/^(var ServiceWidget=)?\(function|^\(function|^var /);
  });

  it('answer 503, not a stale file, when the bundle is missing', async () => {
    expect((await createBundleHandler('/nonexistent/widget.js')()).status).toBe(503);
  });

  it('fail the build when the gzipped bundle is over budget', async () => {
    // Built outside the repository, so nothing is left for lint or git to find.
    const outDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'widget-budget-')), 'dist');
    const build = (budget?: string) => run('pnpm', ['exec', 'vite', 'build', '--outDir', outDir, '--emptyOutDir'], { cwd: widgetDir, env: { ...process.env, ...(budget ? { WIDGET_BUDGET_BYTES: budget } : {}) } });
    try {
      const over = await build('1000').then(
        () => null,
        (error: { stderr?: string; stdout?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
      );
      expect(over).toMatch(/over budget/);
      const ok = await build();
      expect(ok.stdout + ok.stderr).toMatch(/bytes gzipped \(budget 15360\)/);
    } finally {
      rmSync(path.dirname(outDir), { recursive: true, force: true });
    }
  }, 60_000);
});
