import type { Models } from '../db/index.ts';
import type { Sealer } from '../crypto/index.ts';
import { DomainError } from '../errors/index.ts';

export type TokenKind = 'publish' | 'read';
export const tokenLabel = (destinationId: string, kind: TokenKind) => `destination.${destinationId}.${kind}-token`;

export interface DestinationSummary {
  id: string;
  visibility: 'public' | 'private';
  registryUrl: string;
  publishTokenSet: boolean;
  readTokenSet: boolean;
}

/** What to do with a stored token: leave it, replace it with a new value, or clear it. */
export type TokenChange = { action: 'keep' } | { action: 'replace'; value: string } | { action: 'clear' };

/**
 * Per-destination registry credentials, sealed at rest under labels bound to the destination id.
 * Callers outside the registry module only ever get summaries; plaintext leaves through
 * `openTokens`, which only the deployment-config loader calls (the bypass scan enforces it).
 */
export function createDestinationStore(models: Models, sealer: Sealer) {
  const { RegistryDestination } = models;
  const sealedField = (kind: TokenKind) => (kind === 'publish' ? 'publishTokenSealed' : 'readTokenSealed');

  /**
   * A stored token belongs to the registry it was entered for: when the URL moves to another
   * origin, each stored token must be entered again (or cleared), so a settings post can never
   * send a kept secret to a new host.
   */
  async function refuseTokensLeavingTheirOrigin(destination: { id: string; visibility: 'public' | 'private'; registryUrl: string }, tokens: Partial<Record<TokenKind, TokenChange>>) {
    const row = await RegistryDestination.findById(destination.id).lean();
    if (!row || !URL.canParse(row.registryUrl) || new URL(row.registryUrl).origin === new URL(destination.registryUrl).origin) return;
    const kept = (['publish', 'read'] as const).filter((kind) => (tokens[kind] ?? { action: 'keep' }).action === 'keep' && row[sealedField(kind)]);
    if (kept.length === 0) return;
    const reason = `the registry moved to ${new URL(destination.registryUrl).origin}: enter this token again for it, or clear it`;
    throw new DomainError('VALIDATION_FAILED', `The ${destination.visibility} registry URL changed origin, so its stored ${kept.join(' and ')} token must be entered again`, {
      details: kept.map((kind) => ({ path: `${destination.visibility}.${kind}Token`, reason })),
    });
  }

  return {
    refuseTokensLeavingTheirOrigin,

    async put(destination: { id: string; visibility: 'public' | 'private'; registryUrl: string }, tokens: Partial<Record<TokenKind, TokenChange>> = {}) {
      await refuseTokensLeavingTheirOrigin(destination, tokens);
      const set: Record<string, unknown> = { visibility: destination.visibility, registryUrl: destination.registryUrl };
      for (const kind of ['publish', 'read'] as const) {
        const change = tokens[kind] ?? { action: 'keep' };
        if (change.action === 'replace') set[sealedField(kind)] = sealer.seal(change.value, tokenLabel(destination.id, kind));
        if (change.action === 'clear') set[sealedField(kind)] = null;
      }
      await RegistryDestination.updateOne({ _id: destination.id }, { $set: set }, { upsert: true });
    },

    /** Deletes a destination with its sealed tokens; false when there was none. */
    async remove(id: string): Promise<boolean> {
      return (await RegistryDestination.deleteOne({ _id: id })).deletedCount > 0;
    },

    async summary(id: string): Promise<DestinationSummary | null> {
      const row = await RegistryDestination.findById(id).lean();
      if (!row) return null;
      return {
        id: row._id,
        visibility: row.visibility,
        registryUrl: row.registryUrl,
        publishTokenSet: !!row.publishTokenSealed,
        readTokenSet: !!row.readTokenSealed,
      };
    },

    /** Plaintext tokens of one destination; null where none is stored. */
    async openTokens(id: string): Promise<{ registryUrl: string; publishToken: string | null; readToken: string | null } | null> {
      const row = await RegistryDestination.findById(id).lean();
      if (!row) return null;
      return {
        registryUrl: row.registryUrl,
        publishToken: row.publishTokenSealed ? sealer.open(row.publishTokenSealed, tokenLabel(id, 'publish')) : null,
        readToken: row.readTokenSealed ? sealer.open(row.readTokenSealed, tokenLabel(id, 'read')) : null,
      };
    },
  };
}

export type DestinationStore = ReturnType<typeof createDestinationStore>;
