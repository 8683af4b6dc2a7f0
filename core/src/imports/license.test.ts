import { describe, expect, it } from 'vitest';
import { classifyLicense } from './license.ts';

describe('license classification', () => {
  it.each([['MIT'], ['Apache-2.0'], ['BSD-2-Clause'], ['BSD-3-Clause'], ['ISC'], ['(MIT OR GPL-3.0-only)'], ['MIT AND ISC']])('%s installs without a prompt', (license) => {
    expect(classifyLicense({ license }, null)).toMatchObject({ spdx: license, permissive: true });
  });

  it.each([['GPL-3.0-only'], ['MIT AND GPL-3.0-only'], ['Apache-2.0 WITH LLVM-exception'], ['UNLICENSED'], ['SEE LICENSE IN LICENSE.txt'], ['BUSL-1.1']])('%s must be acknowledged', (license) => {
    expect(classifyLicense({ license }, 'text')).toMatchObject({ spdx: license, permissive: false, text: 'text' });
  });

  it('a missing license must be acknowledged, and the legacy { type } form is read', () => {
    expect(classifyLicense({}, null)).toMatchObject({ spdx: null, permissive: false, summary: 'No license declared' });
    expect(classifyLicense({ license: { type: 'MIT' } }, null)).toMatchObject({ spdx: 'MIT', permissive: true });
  });
});
