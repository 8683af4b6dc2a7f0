import semver from 'semver';
import { z } from 'zod';
import { PACKAGE_NAME } from './names.ts';

export const EXTENSION_KINDS = ['agent', 'skill'] as const;
export type ExtensionKind = (typeof EXTENSION_KINDS)[number];

/**
 * The `package.json` of an extension package. The `service` block is what makes an npm package
 * an extension; `agentDependencies` declares which agents its call steps may invoke.
 */
export const manifestSchema = z.object({
  name: z.string().regex(PACKAGE_NAME, 'must be a scoped npm name, @scope/slug, lowercase'),
  version: z.string().refine((v) => semver.valid(v) === v, 'must be a semver version such as 1.0.0'),
  description: z.string().max(500).optional(),
  license: z.string().max(100).optional(),
  service: z.object({
    kind: z.enum(EXTENSION_KINDS),
    flow: z.string().regex(/^[\w.-]+\.json$/, 'must be a JSON file name in the package root').default('flow.json'),
    agentDependencies: z.record(z.string(), z.string()).default({}),
  }),
});

export type Manifest = z.infer<typeof manifestSchema>;
