import { describe, expect, it } from 'vitest';
import { createSeamRouter } from './seam-router.ts';

const ok = (name: string) => async (_request: Request, params: Record<string, string>) => Response.json({ name, params });

describe('the seam router', () => {
  const router = createSeamRouter({
    '/api/a2a': ok('a2a'),
    '/api/a2a/agents/:vendor/:slug': ok('bridge'),
    '/.well-known/agent.json': ok('card'),
  });

  it('matches exact paths and nothing under or beside them', () => {
    expect(router.match('/api/a2a')?.params).toEqual({});
    expect(router.match('/api/a2a/')).toBeNull();
    expect(router.match('/api/a2ax')).toBeNull();
    expect(router.match('/administration')).toBeNull();
    expect(router.match('/.well-known/agent.json')).not.toBeNull();
  });

  it('decodes params and refuses empty or malformed ones', async () => {
    const found = router.match('/api/a2a/agents/acme/summ%40rizer');
    expect(found?.params).toEqual({ vendor: 'acme', slug: 'summ@rizer' });
    expect(await (await found!.handle(new Request('http://x/'), found!.params)).json()).toMatchObject({ name: 'bridge' });
    expect(router.match('/api/a2a/agents//summarizer')).toBeNull();
    expect(router.match('/api/a2a/agents/acme/%E0%A4%A')).toBeNull();
    expect(router.match('/api/a2a/agents/acme/summarizer/extra')).toBeNull();
  });
});
