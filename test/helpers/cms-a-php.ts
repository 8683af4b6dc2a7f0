import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForOutput } from './child-output.ts';
import type { CmsASite, SiteRevision } from './cms-a-double.ts';

const TESTS = fileURLToPath(new URL('../../cms-plugins/cms-a/service_widget/modules/service_widget_tools/tests/', import.meta.url));

interface StoredSite {
  nodes: { nodes: Record<string, { default: number; revisions: Record<string, { title: string; status: boolean; body: { value: string } | null }> }> };
}

/**
 * The Drupal module's `_mcp_tools` (service_widget_tools) under `php -S`: the module's own
 * provider, controller and tools over in-memory stand-ins of Drupal's storage and access, seeded
 * from the contract fixture, whose node ids ("abc123", "locked") no real Drupal node can have.
 * The module's own tests run on real Drupal core (its Kernel tests, drupal-module.test.ts). The
 * key reaches PHP in the environment.
 */
export async function startCmsAPhp(key: string, options: { moderated?: boolean } = {}): Promise<CmsASite> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-a-php-'));
  const stateFile = path.join(dir, 'site.json');
  const php = spawn('php', ['-S', '127.0.0.1:0', path.join(TESTS, 'serve.php')], {
    env: { ...process.env, SERVICE_WIDGET_TOOLS_STATE: stateFile, SERVICE_WIDGET_TOOLS_KEY: key, SERVICE_WIDGET_TOOLS_MODERATED: options.moderated ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const { value: siteUrl } = await waitForOutput(php, /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/, 'php -S', 15_000);

  const revisionsOf = (nid: string): (SiteRevision & { isDefault: boolean })[] => {
    const node = (JSON.parse(readFileSync(stateFile, 'utf8')) as StoredSite).nodes.nodes[nid];
    if (!node) return [];
    return Object.entries(node.revisions).map(([vid, values]) => ({ revisionId: Number(vid), status: values.status ? 'published' : 'draft', title: values.title, body: values.body?.value ?? '', isDefault: Number(vid) === node.default }));
  };
  const strip = ({ isDefault: _, ...revision }: SiteRevision & { isDefault: boolean }): SiteRevision => revision;
  return {
    siteUrl,
    key,
    siteName: 'CMS-A stand-in',
    // Visitors see the default revision when it is published.
    published: (nid) => {
      const current = revisionsOf(nid).find((r) => r.isDefault && r.status === 'published');
      return current ? strip(current) : undefined;
    },
    revisions: (nid) => revisionsOf(nid).map(strip),
    close: async () => {
      if (php.exitCode === null) {
        const exited = new Promise((resolve) => php.once('exit', resolve));
        process.kill(-php.pid!, 'SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
