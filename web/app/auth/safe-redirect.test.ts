import { describe, expect, it } from 'vitest';
import { safeRedirect } from './session.server.ts';

describe('safeRedirect (issue 11, item 5)', () => {
  it.each([
    ['/\t/evil.example', 'a tab browsers drop, leaving //evil.example'],
    ['/\n/evil.example', 'a newline'],
    ['/\r\n/evil.example', 'CR LF'],
    ['/\u0000/evil.example', 'NUL'],
    ['/\u007f/evil.example', 'DEL'],
    ['/\u0085/evil.example', 'a C1 control'],
    ['//evil.example', 'scheme-relative'],
    ['/\\evil.example', 'a backslash browsers read as a slash'],
    ['/%5C/evil.example/..', 'normalizes fine but stays on the site'],
    ['/.//evil.example', 'normalizes to //evil.example'],
    ['/..//evil.example', 'normalizes to //evil.example'],
    ['https://evil.example/', 'absolute'],
    ['javascript:alert(1)', 'a script URL'],
    ['administration', 'relative without a slash'],
  ])('refuses %j (%s) or keeps it on the site', (target) => {
    const result = safeRedirect(target);
    expect(result.startsWith('/')).toBe(true);
    expect(result.startsWith('//')).toBe(false);
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u001f\u007f-\u009f\\]/.test(result)).toBe(false);
    // Resolved as a browser would, it stays on the origin it started from.
    expect(new URL(result, 'https://admin.example').origin).toBe('https://admin.example');
  });

  it('refuses a tab-smuggled target outright', () => {
    expect(safeRedirect('/\t/evil.example')).toBe('/administration');
    expect(safeRedirect('/.//evil.example', '/fallback')).toBe('/fallback');
  });

  it('keeps same-origin paths with their query and fragment', () => {
    expect(safeRedirect('/administration/audit?cursor=abc#top')).toBe('/administration/audit?cursor=abc#top');
    expect(safeRedirect('/administration/runs/../audit')).toBe('/administration/audit');
    expect(safeRedirect(null)).toBe('/administration');
  });
});
