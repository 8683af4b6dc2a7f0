import type { CompiledTemplate } from '../agents/index.ts';
import type { AgentSource } from '../agents/index.ts';
import { isDuplicateKeyError, type Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import { DEFAULT_AGENT_SETTING } from '../settings/index.ts';
import { toExtensionView, type ExtensionView } from './extension-view.ts';
import { createListing } from './listing.ts';
import type { ExtensionOrigin, ImportedFrom } from './origin.ts';

export interface ExtensionWriter {
  /** Upserts the template record of a locally authored package (by package name). */
  upsertAuthored(source: AgentSource, compiled: CompiledTemplate, origin: ExtensionOrigin): Promise<ExtensionView>;
  /** Records a package pulled from a registry or imported; `onlyNew` refuses (CONFLICT) a name already recorded. */
  install(input: { source: AgentSource; compiled: CompiledTemplate; origin: ExtensionOrigin; integrity?: string }, options?: { onlyNew?: boolean }): Promise<ExtensionView>;
  /** Changes fields of `origin.importedFrom` (the update policy, `lastSyncedAt`) of an imported extension. */
  updateImportedFrom(id: string, patch: Partial<ImportedFrom>): Promise<void>;
  /** After a publish or promote: new version and origin. */
  markPublished(id: string, update: { version: string; source: AgentSource; compiled: CompiledTemplate; origin: ExtensionOrigin; integrity?: string }): Promise<ExtensionView>;
  /** Lists records stored before the marketplace listing existed (once per database); returns how many. */
  backfillListing(): Promise<number>;
}

function searchTextOf(compiled: CompiledTemplate): string {
  return [compiled.packageName, compiled.card.name, compiled.card.description, ...compiled.card.tags].join(' ').toLowerCase();
}

/**
 * Writes extension records. Reads go through the reader (and its visibility filter) instead.
 * Every write then records the row's key in the marketplace listing (listing.ts).
 */
export function createExtensionWriter(models: Models): ExtensionWriter {
  const { Extension, Setting } = models;
  const listing = createListing(models);
  /**
   * The first agent recorded here becomes the default agent of A2A (where a message naming none
   * goes), so a generic client works once an agent is published; an admin's choice, "none"
   * included, is stored already and stays.
   */
  const defaultIfFirst = async (compiled: CompiledTemplate) => {
    if (compiled.kind !== 'agent') return;
    await Setting.create({ _id: DEFAULT_AGENT_SETTING, value: compiled.card.id }).catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
  };
  const listed = async <R extends Parameters<typeof listing.put>[0] & Parameters<typeof toExtensionView>[0]>(row: R): Promise<ExtensionView> => {
    await listing.put(row);
    return toExtensionView(row);
  };
  return {
    async upsertAuthored(source, compiled, origin) {
      const row = await Extension.findOneAndUpdate(
        { packageName: compiled.packageName },
        {
          $set: { kind: compiled.kind, version: compiled.version, source, compiled, searchText: searchTextOf(compiled), origin },
          $setOnInsert: { packageName: compiled.packageName, status: 'draft', active: true },
        },
        { upsert: true, returnDocument: 'after', lean: true },
      );
      return listed(row!);
    },

    async install({ source, compiled, origin, integrity }, options = {}) {
      if (options.onlyNew) {
        try {
          const row = await Extension.create({ packageName: compiled.packageName, kind: compiled.kind, version: compiled.version, status: 'installed', source, compiled, searchText: searchTextOf(compiled), origin, integrity, active: true });
          await defaultIfFirst(compiled);
          return listed(row.toObject());
        } catch (error) {
          if (isDuplicateKeyError(error)) throw new DomainError('CONFLICT', `${compiled.packageName} is already on this instance; update it from its page instead`);
          throw error;
        }
      }
      try {
        const row = await Extension.findOneAndUpdate(
          { packageName: compiled.packageName, status: { $ne: 'draft' } },
          {
            $set: { kind: compiled.kind, version: compiled.version, status: 'installed', source, compiled, searchText: searchTextOf(compiled), origin, integrity, active: true },
            $setOnInsert: { packageName: compiled.packageName },
          },
          { upsert: true, returnDocument: 'after', lean: true },
        );
        await defaultIfFirst(compiled);
        return listed(row!);
      } catch (error) {
        if (isDuplicateKeyError(error)) {
          throw new DomainError('CONFLICT', `${compiled.packageName} is authored on this instance as a draft; it cannot be installed over it`);
        }
        throw error;
      }
    },

    async updateImportedFrom(id, patch) {
      const set = Object.fromEntries(Object.entries(patch).map(([key, value]) => [`origin.importedFrom.${key}`, value]));
      const result = await Extension.updateOne({ _id: id, 'origin.importedFrom': { $exists: true } }, { $set: set });
      if (result.matchedCount === 0) throw new DomainError('NOT_FOUND', 'No imported extension with that id');
    },

    async markPublished(id, { version, source, compiled, origin, integrity }) {
      const row = await Extension.findByIdAndUpdate(
        id,
        { $set: { version, source, compiled, searchText: searchTextOf(compiled), origin, integrity, status: 'published' } },
        { returnDocument: 'after', lean: true },
      );
      if (!row) throw new DomainError('NOT_FOUND', 'Extension not found');
      await defaultIfFirst(compiled);
      return listed(row);
    },

    backfillListing: () =>
      listing.backfill((afterId, size) => Extension.find(afterId ? { _id: { $gt: afterId } } : {}, { packageName: 1, kind: 1, searchText: 1, origin: 1 }).sort({ _id: 1 }).limit(size).lean()),
  };
}
