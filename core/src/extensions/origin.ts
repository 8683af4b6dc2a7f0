import { z } from 'zod';

export const importedFromSchema = z.object({
  source: z.enum(['github', 'zip', 'chat']),
  url: z.string().optional(),
  license: z.string().optional(),
  licenseAcknowledged: z.boolean().optional(),
  updatePolicy: z.enum(['manual', 'auto']),
  lastSyncedAt: z.string().optional(),
});

/** The spec's ExtensionOrigin, carried on every extension record. No registry secret ever goes in here. */
export const extensionOriginSchema = z.object({
  packageName: z.string(),
  version: z.string(),
  /** null for public-registry installs. */
  destinationId: z.string().nullable(),
  scope: z.string().regex(/^@[a-z0-9][a-z0-9._-]*$/),
  visibility: z.enum(['public', 'private']),
  /** Empty until the package is first published or when it was authored here and never left. */
  registryUrl: z.string(),
  importedFrom: importedFromSchema.optional(),
});

export type ExtensionOrigin = z.infer<typeof extensionOriginSchema>;
export type ImportedFrom = z.infer<typeof importedFromSchema>;
