import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWordPress, type RunningWordPress } from '../helpers/wordpress.ts';

let wp: RunningWordPress;
beforeAll(async () => {
  wp = await startWordPress();
}, 180_000);
afterAll(async () => {
  await wp?.stop();
});

describe('the real WordPress harness', () => {
  it('serves the REST API under /wp-json/ and accepts the application password over HTTP basic', async () => {
    const auth = `Basic ${Buffer.from(`${wp.username}:${wp.applicationPassword}`).toString('base64')}`;
    const me = await fetch(`${wp.url}/wp-json/wp/v2/users/me?context=edit`, { headers: { authorization: auth } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ slug: 'editor', roles: ['editor'] });
    const wrong = await fetch(`${wp.url}/wp-json/wp/v2/users/me`, { headers: { authorization: `Basic ${Buffer.from(`${wp.username}:nope nope nope`).toString('base64')}` } });
    expect(wrong.status).toBe(401);
  });
});
