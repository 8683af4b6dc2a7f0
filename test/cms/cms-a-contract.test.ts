/**
 * The `_mcp_tools` contract, as data, against every implementation: the TypeScript double the
 * connector tests use, and the Drupal module on a real Drupal 10.3 site, with core's pending
 * revisions and with Content Moderation. Every tool, the revision
 * rules (a draft beside the live revision, updates only on a draft, one new default revision on
 * publish), field access, the errors, the bearer check. On the real site the fixture's node ids
 * and image URLs are bound to the site's, as its revision ids are.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindFixture, departures, runContract, type ContractBindings } from '../helpers/cms-a-contract.ts';
import { contractFixture, startCmsADouble, type CmsASite } from '../helpers/cms-a-double.ts';
import { drupalSkipReason, skipNote, startDrupal } from '../helpers/drupal-site.ts';

type Implementation = [string, (key: string) => Promise<CmsASite & { bindings?: ContractBindings }>, skip?: string];
const implementations: Implementation[] = [
  ['the TypeScript double', startCmsADouble],
  // A real site makes its own key: the module generates it, as for a site owner.
  ['the Drupal module on a real Drupal 10.3 (core pending revisions)', () => startDrupal(), drupalSkipReason()],
  ['the Drupal module on a real Drupal 10.3 (Content Moderation)', () => startDrupal({ moderation: true }), drupalSkipReason()],
];

for (const [name, start, skip] of implementations) describe.skipIf(skip)(`the _mcp_tools contract fixture, answered by ${name}${skipNote(skip)}`, () => {
  let site: CmsASite & { bindings?: ContractBindings };
  beforeAll(async () => {
    site = await start(`mcpkey_${randomBytes(16).toString('hex')}`);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('step by step', async () => {
    const report = await runContract(site.siteUrl, site.key, site.bindings);
    expect(report.map((r) => r.step)).toEqual(contractFixture().steps.map((s) => s.name));
    expect(report.filter((r) => r.departures.length > 0), name).toEqual([]);
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
  it('binds a real site\'s node ids (nid members only) and image URLs into the fixture', () => {
    const bindings = { nids: { '42': '7' }, urls: { 'https://media.example.test/cover.png': 'http://site/files/cover.png' } };
    expect(bindFixture({ nid: '42', title: '42', fields: { media: [{ url: 'https://media.example.test/cover.png' }] }, other: { nid: 'missing' } }, bindings)).toEqual({
      nid: '7',
      title: '42',
      fields: { media: [{ url: 'http://site/files/cover.png' }] },
      other: { nid: 'missing' },
    });
  });

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
