/**
 * The embedded default's own servers, for a machine without MONGODB_URI: a local MongoDB-wire
 * database (a cached or downloaded mongod, else FerretDB built through Go) and a Verdaccio
 * registry. Core loads this package only when it starts the embedded default
 * (core/src/boot/embedded-extras.ts), so a production install leaves it out (ADR 0026).
 */
export { startEmbeddedDatabase, type EmbeddedOptions } from './start-database.ts';
export { ensureFerretdb, findFerretdb, installFerretdb, FERRETDB_VERSION } from './ferretdb-binary.ts';
export type { EmbeddedDatabase } from './database-types.ts';
export type { EmbeddedLogger, PasswordSealer } from './host.ts';
export { startEmbeddedRegistry, type EmbeddedRegistry } from './embedded-registry.ts';
