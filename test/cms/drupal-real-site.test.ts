/**
 * What only a real Drupal 10.3 shows about the CMS-A modules: the site's log while the service
 * uses the tools, the text format of what the tools write and how visitors see it, text search on
 * the site's database, the permissions the docs tell a site owner to grant (every real-Drupal test
 * grants exactly those). (The contract and the connector run on the real site too: cms-a-contract
 * and cms-a tests; the widget in Chromium: test/widget/drupal-widget-browser.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callSiteTool, runContract } from '../helpers/cms-a-contract.ts';
import { documentedToolsPermissions, drupalSkipReason, skipNote, startDrupal, type DrupalSite } from '../helpers/drupal-site.ts';

const skip = drupalSkipReason();

const kinds = [
  ['core pending revisions', false],
  ['Content Moderation', true],
] as const;
for (const [name, moderation] of kinds) describe.skipIf(skip)(`the Drupal modules on a real Drupal 10.3 (${name})${skipNote(skip)}`, () => {
  let site: DrupalSite;
  const tool = (name: string, args: Record<string, unknown>) => callSiteTool(site.siteUrl, site.key, name, args);
  const createNode = (title: string, body: string | null) =>
    site.php<string>(
      `$node = \\Drupal\\node\\Entity\\Node::create(['type' => 'article', 'title' => $input['title'], 'uid' => 1, 'status' => 1] + ($input['body'] === NULL ? [] : ['body' => ['value' => $input['body'], 'format' => 'basic_html']]));
       if ($node->hasField('moderation_state')) { $node->set('moderation_state', 'published'); }
       $node->save(); return (string) $node->id();`,
      { title, body },
    );

  beforeAll(async () => {
    site = await startDrupal({ moderation });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('installs the modules with nothing in the log or on the console', () => {
    expect(site.setupOutput).toBe('');
    expect(site.log().filter((entry) => entry.severity <= 4)).toEqual([]);
    expect(site.serverOutput()).not.toMatch(/Deprecated|Warning|Notice|Fatal/i);
  });

  it('answers GET and DELETE on /_mcp_tools with a bare 405, and the service using the tools leaves nothing in the site\'s log', async () => {
    const since = Math.max(0, ...site.log().map((entry) => entry.wid)) + 1;
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${site.siteUrl}/_mcp_tools`, { method, headers: { authorization: `Bearer ${site.key}`, accept: 'text/event-stream' } });
      const body = await response.text();
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow'), method).toBe('POST');
      expect(body.length, `${method}: ${body.slice(0, 200)}`).toBeLessThan(300);
    }
    // The MCP SDK's client (what the connector uses) opens with GET for a stream, then POSTs.
    const report = await runContract(site.siteUrl, site.key, site.bindings);
    expect(report.filter((step) => step.departures.length > 0)).toEqual([]);
    expect(site.log(since).filter((entry) => entry.severity <= 4)).toEqual([]);
  });

  it('gives a body written into an empty body field a text format, so visitors see it rendered, not as markup', async () => {
    const nid = await createNode('No body yet', null);
    expect((await tool('node_create_draft_revision', { nid })).error).toBeUndefined();
    expect((await tool('node_update', { nid, fields: { body: '<p>Written by the <strong>assistant</strong>.</p>' } })).error).toBeUndefined();
    expect((await tool('node_publish', { nid })).error).toBeUndefined();
    const page = await (await fetch(`${site.siteUrl}/node/${nid}`)).text();
    expect(page).toContain('<p>Written by the <strong>assistant</strong>.</p>');
    expect(page).not.toContain('&lt;p&gt;');
  });

  it('searches text the way the site\'s database compares it, and agrees with itself by id and by text', async () => {
    const nid = await createNode('Über uns', 'Die Straße am Fluss.');
    // SQLite compares A to Z without case and other letters exactly (MySQL and PostgreSQL: all
    // letters without case); docs/cms-a-mcp-tools.md says so. By id the tool asks the same query.
    const found = { über: false, Über: true, ÜBER: true, uns: true, UNS: true, straße: true, STRAßE: true, fluss: true, nirgends: false } as Record<string, boolean>;
    for (const [text, expected] of Object.entries(found)) {
      const byText = (await tool('node_search', { text, limit: 50 })).result!.nodes.some((node: { nid: string }) => node.nid === nid);
      const byId = (await tool('node_search', { nid, text })).result!.nodes.length === 1;
      expect([byText, byId], `"${text}" by text, by id`).toEqual([expected, expected]);
    }
  });
});

describe('the tools user\'s permissions in docs/drupal-module.md', () => {
  it('are read from its table, per kind of site (the real-Drupal tests grant exactly these)', () => {
    expect(documentedToolsPermissions(false)).toEqual(['View published content', 'Article: Edit any content', 'Use the Basic HTML text format', 'Administer content']);
    expect(documentedToolsPermissions(true)).toEqual([
      'View published content',
      'Article: Edit any content',
      'Use the Basic HTML text format',
      'Editorial workflow: Use Create New Draft transition.',
      'Editorial workflow: Use Publish transition.',
    ]);
  });
});
