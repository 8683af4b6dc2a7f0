import type { ReviewContext } from '../agents/index.ts';
import type { Models } from '../db/index.ts';
import { toExtensionView, type ExtensionView } from './extension-view.ts';
import { visibilityFilter } from './visibility.ts';

export interface MarketplaceQuery {
  text?: string;
  kind?: 'agent' | 'skill';
  limit?: number;
  /** The last packageName of the previous page. */
  after?: string;
}

export interface ExtensionReader {
  /** Active agent templates visible here: what the AgentCard and the runtime use. */
  activeTemplates(): Promise<ExtensionView[]>;
  /** The marketplace screen: visible records, searched and paged by package name. */
  marketplace(query?: MarketplaceQuery): Promise<{ items: ExtensionView[]; nextAfter: string | null }>;
  /** The extension-search handler (MCP uses it): the best matches for a text. */
  search(text: string, limit?: number): Promise<ExtensionView[]>;
  get(id: string): Promise<ExtensionView | null>;
  getByPackageName(packageName: string): Promise<ExtensionView | null>;
  /** Agent dependencies of every visible record, for review's cycle check. */
  dependencyIndex(): Promise<Map<string, Record<string, string>>>;
  /** What review needs to judge a package for `vendorScope`: that scope and the visible agents' dependencies (for cycles). */
  reviewContext(vendorScope: string): Promise<ReviewContext>;
  /** The filter in effect for this reader, for `explain` checks. */
  filter(): ReturnType<typeof visibilityFilter>;
}

/**
 * The only reader of extension records. Every method applies the visibility filter for the
 * instance's own vendor scope; nothing here can be asked to skip it.
 */
export function createExtensionReader(models: Models, identity: { vendorScope: string }): ExtensionReader {
  const { Extension } = models;
  const visible = () => visibilityFilter(identity.vendorScope);
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  const dependencyIndex = async () => {
    const rows = await Extension.find(visible(), { packageName: 1, 'compiled.agentDependencies': 1 }).lean();
    return new Map(rows.map((row) => [row.packageName, (row.compiled as { agentDependencies?: Record<string, string> } | undefined)?.agentDependencies ?? {}]));
  };
  const marketplace: ExtensionReader['marketplace'] = async ({ text, kind, limit = 50, after } = {}) => {
    const size = Math.min(Math.max(limit, 1), 200);
    const and: Record<string, unknown>[] = [visible()];
    if (kind) and.push({ kind });
    if (text?.trim()) and.push({ searchText: { $regex: escape(text.trim().toLowerCase()) } });
    if (after) and.push({ packageName: { $gt: after } });
    const rows = await Extension.find({ $and: and }).sort({ packageName: 1 }).limit(size + 1).lean();
    const items = rows.slice(0, size).map(toExtensionView);
    return { items, nextAfter: rows.length > size ? (items[items.length - 1]?.packageName ?? null) : null };
  };

  return {
    async activeTemplates() {
      const rows = await Extension.find({ $and: [visible(), { kind: 'agent', active: true, status: { $ne: 'draft' } }] }).sort({ packageName: 1 }).lean();
      return rows.map(toExtensionView);
    },
    marketplace,
    async search(text, limit = 20) {
      return (await marketplace({ text, limit })).items;
    },
    async get(id) {
      if (!/^[a-f0-9]{24}$/.test(id)) return null;
      const row = await Extension.findOne({ $and: [visible(), { _id: id }] }).lean();
      return row ? toExtensionView(row) : null;
    },
    async getByPackageName(packageName) {
      const row = await Extension.findOne({ $and: [visible(), { packageName }] }).lean();
      return row ? toExtensionView(row) : null;
    },
    dependencyIndex,
    async reviewContext(vendorScope) {
      const index = await dependencyIndex();
      return { vendorScope, knownDependencies: (name) => index.get(name) };
    },
    filter: visible,
  };
}
