/**
 * The `_mcp_tools` contract, as data, against both implementations: the TypeScript double the
 * connector tests use, and the Drupal module's own endpoint (service_widget_tools) served by
 * `php -S` over in-memory stand-ins of Drupal's storage, with core's pending revisions and with
 * Content Moderation. Every tool, the revision rules (a draft beside the live revision, updates
 * only on a draft, one new default revision on publish), field access, the errors, the bearer check.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { departures, runContract } from '../helpers/cms-a-contract.ts';
import { contractFixture, startCmsADouble, type CmsASite } from '../helpers/cms-a-double.ts';
import { startCmsAPhp } from '../helpers/cms-a-php.ts';

const implementations: [string, (key: string) => Promise<CmsASite>][] = [
  ['the TypeScript double', startCmsADouble],
  ['the Drupal module under php -S (core pending revisions)', (key) => startCmsAPhp(key)],
  ['the Drupal module under php -S (Content Moderation)', (key) => startCmsAPhp(key, { moderated: true })],
];

describe.each(implementations)('the _mcp_tools contract fixture, answered by %s', (_name, start) => {
  let site: CmsASite;
  beforeAll(async () => {
    site = await start(`mcpkey_${randomBytes(16).toString('hex')}`);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('step by step', async () => {
    const report = await runContract(site.siteUrl, site.key);
    expect(report.map((r) => r.step)).toEqual(contractFixture().steps.map((s) => s.name));
    expect(report.filter((r) => r.departures.length > 0)).toEqual([]);
  });

  it('publishing left exactly one new published revision, and the one before it still in history', () => {
    const revisions = site.revisions('42');
    expect(revisions[0]).toMatchObject({ status: 'published', title: 'Published title' });
    expect(revisions.at(-1)).toMatchObject({ status: 'published', title: 'Edited title', body: 'The body.' });
    expect(revisions.filter((r) => r.status === 'published' && r.title === 'Edited title')).toHaveLength(1);
    expect(site.published('42')).toEqual(revisions.at(-1));
  });

  it('refuses a missing or wrong key with 401 before any tool runs', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${site.key}`, `Bearer ${site.key}x`]) {
      const response = await fetch(`${site.siteUrl}/_mcp_tools`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) }, body });
      expect(response.status, String(authorization)).toBe(401);
    }
  });
});

describe('the contract matcher', () => {
  it('is strict: a changed value, a missing or extra key, a rebound id or a wrong type is a departure', () => {
    const bound = new Map([['r', 7]]);
    expect(departures({ a: 1, b: { $type: 'string' }, c: { $bind: 'r' } }, { a: 1, b: 'x', c: 7 }, bound)).toEqual([]);
    expect(departures({ a: 1 }, { a: 2 }, bound)).toEqual(['$.a: expected 1, got 2']);
    expect(departures({ a: 1 }, {}, bound)).toEqual(['$.a: missing']);
    expect(departures({ a: 1 }, { a: 1, z: 0 }, bound)).toEqual(['$.z: not in the contract']);
    expect(departures({ c: { $bind: 'r' } }, { c: 8 }, bound)).toEqual(['$.c: expected r = 7, got 8']);
    expect(departures({ b: { $type: 'string' } }, { b: 3 }, bound)).toEqual(['$.b: expected a string, got 3']);
    expect(departures([1, 2], [1], bound)).toEqual(['$: expected 2 items, got [1]']);
  });
});
