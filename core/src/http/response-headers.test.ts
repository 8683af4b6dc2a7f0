import { describe, expect, it } from 'vitest';
import { withHeaders } from './response-headers.ts';

describe('withHeaders', () => {
  it('sets headers on the response itself when it can, replacing or keeping those it has', () => {
    const response = new Response('x', { headers: { 'access-control-allow-origin': 'https://a.test' } });
    expect(withHeaders(response, { 'access-control-allow-origin': '*', 'x-one': '1' })).toBe(response);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(withHeaders(response, { 'access-control-allow-origin': 'https://b.test', 'x-two': '2' }, { keep: true }).headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-two')).toBe('2');
  });

  it('answers a copy, status and body kept, when the headers are immutable', async () => {
    const redirect = Response.redirect('http://127.0.0.1:3000/elsewhere', 302);
    const copy = withHeaders(redirect, { location: 'http://evil.test/', 'x-one': '1' }, { keep: true });
    expect(copy).not.toBe(redirect);
    expect(copy.status).toBe(302);
    expect(copy.headers.get('location')).toBe('http://127.0.0.1:3000/elsewhere');
    expect(copy.headers.get('x-one')).toBe('1');
    const replaced = withHeaders(Response.redirect('http://127.0.0.1:3000/a', 307), { location: 'http://127.0.0.1:3000/b' });
    expect(replaced.headers.get('location')).toBe('http://127.0.0.1:3000/b');
    expect(await replaced.text()).toBe('');
  });
});
