import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { createClaims } from './claims.ts';

const t = useTestDatabase();
const LAPSE_MS = 60_000;

/** A claim won `agoMs` ago by a holder that never finished (it died). */
async function wonBy(key: string, agoMs: number) {
  await t.db.models.Claim.create({ _id: key, owner: 'dead', at: new Date(Date.now() - agoMs) });
}

describe('insert-once claims', () => {
  it('gives a key to exactly one of many callers', async () => {
    const claims = [createClaims(t.db.models), createClaims(t.db.models), createClaims(t.db.models)];
    const won = await Promise.all(claims.flatMap((claim) => [claim.once('race'), claim.once('race')]));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('gives a key whose winner died to one caller once it lapsed, not before', async () => {
    await wonBy('fresh', 1_000);
    expect(await createClaims(t.db.models).onceOrLapsed('fresh', LAPSE_MS)).toBe(false);
    await wonBy('lapsed', 2 * LAPSE_MS);
    const won = await Promise.all([1, 2, 3, 4].map(() => createClaims(t.db.models).onceOrLapsed('lapsed', LAPSE_MS)));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('steps past a successor that died too, so a key is not stuck until the sweep', async () => {
    const at = Date.now() - 3 * LAPSE_MS;
    await t.db.models.Claim.create({ _id: 'twice', owner: 'dead', at: new Date(at) });
    await wonBy(`twice:after:${at}`, 2 * LAPSE_MS);
    const won = await Promise.all([1, 2, 3].map(() => createClaims(t.db.models).onceOrLapsed('twice', LAPSE_MS)));
    expect(won.filter(Boolean)).toHaveLength(1);
    // The one that won now holds it: nobody else gets it until it lapses in turn.
    expect(await createClaims(t.db.models).onceOrLapsed('twice', LAPSE_MS)).toBe(false);
  });
});
