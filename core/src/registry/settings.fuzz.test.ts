import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/index.ts';
import { fuzzParameters, testServices, useTestDatabase, within } from '../testing/index.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;

const url = fc.oneof({ arbitrary: fc.constantFrom('https://npm.example.com/', 'https://registry.example.org/npm/'), weight: 4 }, fc.constantFrom('https://npm.example.com/', 'http://127.0.0.1:4873/', 'https://user:pw@x.test/', 'ftp://x.test/', 'https://x.test/?q=1', 'javascript:alert(1)', ''), fc.webUrl(), fc.string({ maxLength: 200 }));
const token = fc.oneof({ arbitrary: fc.record({ action: fc.constantFrom('keep', 'clear') }), weight: 4 }, fc.record({ action: fc.constantFrom('keep', 'clear', 'replace', 'other') }), fc.record({ action: fc.constant('replace'), value: fc.string({ maxLength: 5000 }) }), fc.jsonValue({ maxDepth: 2 }));
const destination = fc.record({ registryUrl: url, publishToken: token, readToken: token }, { requiredKeys: ['registryUrl', 'publishToken', 'readToken'] });
const settings = fc.oneof(
  fc.record({ routingMode: fc.constantFrom('scope-based', 'shared-acl', 'scope-based', 'other'), public: destination, private: fc.oneof(fc.constant(null), fc.record({ id: fc.oneof(fc.constantFrom('acme-private', 'public', 'A B'), fc.string({ maxLength: 80 })) }).chain((head) => destination.map((d) => ({ ...head, ...d })))) }),
  fc.jsonValue({ maxDepth: 3 }),
);

describe('fuzzing the registry settings', () => {
  it('saves or refuses with a typed error whatever the form posts, never a crash or a hang', async () => {
    const { registry } = testServices(t.db);
    let saved = 0;
    await fc.assert(
      fc.asyncProperty(settings, async (input) => {
        try {
          await within(5_000, registry.settings.save(admin, input));
          saved++;
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(DomainError);
          expect(['VALIDATION_FAILED', 'BAD_REQUEST']).toContain((error as DomainError).code);
        }
      }),
      fuzzParameters(300),
    );
    // Some inputs are valid, so the save path itself was exercised, not only the parser.
    expect(saved).toBeGreaterThan(0);
  });
});
