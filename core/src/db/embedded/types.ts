export interface EmbeddedDatabase {
  /** Connection string without a database name. */
  uri: string;
  kind: 'ferretdb' | 'mongodb-memory-server';
  stop(): Promise<void>;
  /** Best-effort synchronous stop for `process.on('exit')`. */
  stopSync(): void;
}
