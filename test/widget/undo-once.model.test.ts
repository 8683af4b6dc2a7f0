import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Services } from '@service/core';
import { connectDatabase, type Database } from '@service/core/db';
import { createRateLimiter } from '@service/core/http';
import { createMemoryLogger } from '@service/core/log';
import { fuzzParameters, testServices, useTestDatabase } from '@service/core/testing';
import { createWidgetStreamHandler, createWidgetUndoHandler } from '@service/core/widget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCmsADouble, type CmsADouble } from '../helpers/cms-a-double.ts';
import { changesOf, widgetCaller, type Answer } from '../helpers/widget-requests.ts';

/**
 * Model-based: two service processes (two database connections, two sets of widget routes) get
 * bursts of concurrent Undo clicks for one change, between changes made by hand to the item and
 * put back. Whatever the interleaving, a token undoes its change at most once: exactly one click
 * goes through when the change is not undone yet and the item is as the edit left it, every other
 * click is a 409 that writes nothing, and once undone the token never writes again, even when the
 * item is made to look exactly as the edit left it.
 */
const t = useTestDatabase();
const slug = 'cms-a-content-editor';
const admin = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;
let site: CmsADouble;
let second: Database;
let processes: ReturnType<typeof widgetCaller>[];
let nodes = 0;

beforeAll(async () => {
  const masterKey = randomBytes(32).toString('base64');
  site = await startCmsADouble(`mcpkey_${randomBytes(8).toString('hex')}`);
  second = await connectDatabase(t.uri);
  const services: Services[] = [testServices(t.db, { SERVICE_MASTER_KEY: masterKey }), testServices(second, { SERVICE_MASTER_KEY: masterKey })];
  await services[0]!.connectorInstances.put(admin, { connector: 'cms_a', id: 'drupal', name: 'Drupal', siteUrl: site.siteUrl, credential: site.key });
  const { key } = await services[0]!.widgetKeys.rotate(admin, 'cms_a', 'drupal');
  processes = services.map((s) => {
    // No rate limit here: the bursts are the point.
    const deps = { streams: s.streams, widgetKeys: s.widgetKeys, edits: s.widgetEdits, audit: s.audit, llm: () => s.llm, rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }), logger: createMemoryLogger() };
    return widgetCaller({ handlers: { widgetStream: createWidgetStreamHandler(deps), widgetUndo: createWidgetUndoHandler(deps) }, slug, instanceId: 'drupal', origin: site.siteUrl, key });
  });
});

afterAll(async () => {
  await second?.close();
  await site?.close();
});

const ORIGINAL = 'Original title';
const EDITED = 'Assistant title';
const TYPED = 'Typed by a person';

interface Model {
  undone: boolean;
  /** The draft's title differs from what the edit left. */
  changed: boolean;
}
interface Real {
  nid: string;
  token: string;
}
const draft = (real: Real) => site.nodes.get(real.nid)!.revisions.at(-1)!;

class Burst implements fc.AsyncCommand<Model, Real> {
  constructor(readonly clicks: [number, number]) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const titleBefore = draft(real).title;
    const requests = this.clicks.flatMap((count, process) => Array.from({ length: count }, () => processes[process]!.undo({ token: real.token })));
    const answers: Answer[] = await Promise.all(requests);
    const through = answers.filter((answer) => answer.status === 200);
    for (const refused of answers.filter((answer) => answer.status !== 200)) expect(refused, JSON.stringify(refused)).toMatchObject({ status: 409, error: { code: 'CONFLICT' } });
    if (!model.undone && !model.changed) {
      expect(through, 'exactly one click undoes the change').toHaveLength(1);
      expect(draft(real).title).toBe(ORIGINAL);
      model.undone = true;
      model.changed = true;
    } else {
      expect(through, 'no click writes').toHaveLength(0);
      expect(draft(real).title).toBe(titleBefore);
    }
  }
  toString = () => `Burst(${this.clicks.join('+')})`;
}

/** A person changes the draft's title in the CMS (the same revision). */
class HandEdit implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    draft(real).title = TYPED;
    model.changed = true;
  }
  toString = () => 'HandEdit';
}

/** A person puts the title back to what the assistant wrote: the item looks as the edit left it. */
class HandRevert implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    draft(real).title = EDITED;
    model.changed = false;
  }
  toString = () => 'HandRevert';
}

const clicks = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })).filter(([a, b]) => a + b > 0) as fc.Arbitrary<[number, number]>;
const commands = fc.commands([clicks.map((c) => new Burst(c)), fc.constant(new HandEdit()), fc.constant(new HandRevert())], { maxCommands: 8 });

describe('an undo token under concurrent clicks from two processes', () => {
  it('undoes its change at most once, and only while the item is as the edit left it', async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const nid = `once${++nodes}`;
        site.nodes.set(nid, { nid, type: 'article', fieldsEditable: true, revisions: [{ revisionId: 50_000 + nodes * 10, status: 'published', title: ORIGINAL, fields: { body: 'Body.', summary: '' } }] });
        const edit = changesOf(await processes[nodes % 2]!.stream(`set title to "${EDITED}"`, nid));
        await fc.asyncModelRun(() => ({ model: { undone: false, changed: false }, real: { nid, token: edit.id! } }), cmds);
      }),
      fuzzParameters(25),
    );
  }, 120_000);
});
