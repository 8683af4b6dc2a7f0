export interface EmbeddedDatabase {
  /** Connection string without a database name. */
  uri: string;
  kind: 'ferretdb' | 'mongod';
  /** What runs, for the start log and the administration overview. */
  description: string;
  /** The server's own process id (recorded in the data directory's lock). */
  pid: number;
  /** Settles when the server's process has exited, for whatever reason. */
  exited: Promise<void>;
  stop(): Promise<void>;
  /** Best-effort synchronous stop for `process.on('exit')`. */
  stopSync(): void;
}
