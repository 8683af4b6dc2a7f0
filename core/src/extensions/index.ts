export { extensionOriginSchema, importedFromSchema, type ExtensionOrigin, type ImportedFrom } from './origin.ts';
export { visibilityFilter, isVisibleTo } from './visibility.ts';
export { createExtensionReader, type ExtensionReader, type MarketplaceQuery } from './reader.ts';
export { createExtensionWriter, type ExtensionWriter } from './writer.ts';
export { listingKey } from './listing.ts';
export type { ExtensionView } from './extension-view.ts';
