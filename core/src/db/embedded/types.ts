export interface EmbeddedDatabase {
  /** Connection string without a database name. */
  uri: string;
  kind: 'ferretdb' | 'mongod';
  /** What runs, for the start log and the administration overview. */
  description: string;
  stop(): Promise<void>;
  /** Best-effort synchronous stop for `process.on('exit')`. */
  stopSync(): void;
}
