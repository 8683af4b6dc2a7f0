export { startEmbeddedDatabase, type EmbeddedOptions } from './start-embedded.ts';
export { ensureFerretdb, findFerretdb, installFerretdb, FERRETDB_VERSION } from './ferretdb-binary.ts';
export type { EmbeddedDatabase } from './types.ts';
