import type { CompiledTemplate } from '../agents/index.ts';
import type { ExtensionOrigin } from './origin.ts';

/** An extension record as callers see it: plain data, never the mongoose document. */
export interface ExtensionView {
  id: string;
  packageName: string;
  kind: 'agent' | 'skill';
  version: string;
  status: 'draft' | 'published' | 'installed';
  active: boolean;
  compiled: CompiledTemplate;
  source: { manifest: unknown; flow: unknown };
  origin: ExtensionOrigin;
  integrity?: string;
  updatedAt: string;
}

interface Row {
  _id: unknown;
  packageName: string;
  kind: string;
  version: string;
  status: string;
  active?: boolean | null;
  compiled: unknown;
  source?: { manifest?: unknown; flow?: unknown } | null;
  origin: unknown;
  integrity?: string | null;
  updatedAt?: Date | null;
}

export function toExtensionView(row: Row): ExtensionView {
  return {
    id: String(row._id),
    packageName: row.packageName,
    kind: row.kind as ExtensionView['kind'],
    version: row.version,
    status: row.status as ExtensionView['status'],
    active: row.active ?? true,
    compiled: row.compiled as CompiledTemplate,
    source: { manifest: row.source?.manifest, flow: row.source?.flow },
    origin: stripOrigin(row.origin as ExtensionOrigin),
    ...(row.integrity ? { integrity: row.integrity } : {}),
    updatedAt: (row.updatedAt ?? new Date(0)).toISOString(),
  };
}

function stripOrigin(origin: ExtensionOrigin): ExtensionOrigin {
  const { packageName, version, destinationId, scope, visibility, registryUrl, importedFrom } = origin;
  return { packageName, version, destinationId: destinationId ?? null, scope, visibility, registryUrl: registryUrl ?? '', ...(importedFrom ? { importedFrom } : {}) };
}
