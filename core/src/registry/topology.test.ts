import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { npmrcAuthKey, topologyFlags, withTemporaryNpmrc } from './index.ts';

describe('topology adapters', () => {
  it('scope-based routes the scope, shared-acl the whole command', () => {
    expect(topologyFlags('scope-based', { scope: '@acme', registryUrl: 'http://127.0.0.1:4000' })).toEqual(['--@acme:registry=http://127.0.0.1:4000/']);
    expect(topologyFlags('shared-acl', { scope: '@acme', registryUrl: 'https://npm.example.com/team/' })).toEqual(['--registry=https://npm.example.com/team/']);
  });
});

describe('temporary npmrc', () => {
  it('holds the token under the registry key, mode 0600, and is removed afterwards, even on failure', async () => {
    expect(npmrcAuthKey('http://127.0.0.1:4873')).toBe('//127.0.0.1:4873/');
    expect(npmrcAuthKey('https://npm.example.com/team')).toBe('//npm.example.com/team/');
    let seen = '';
    await withTemporaryNpmrc('http://127.0.0.1:4873/', 'npm_secret', async (file) => {
      seen = file;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toBe('//127.0.0.1:4873/:_authToken=npm_secret\n');
    });
    expect(existsSync(seen)).toBe(false);
    await expect(
      withTemporaryNpmrc('http://127.0.0.1:4873/', 'npm_secret', async (file) => {
        seen = file;
        throw new Error('publish failed');
      }),
    ).rejects.toThrow('publish failed');
    expect(existsSync(seen)).toBe(false);
  });
});
