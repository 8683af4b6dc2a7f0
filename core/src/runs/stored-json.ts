/**
 * What callers and agents send (messages, data parts, artifacts, HITL answers, screen schemas)
 * is stored as JSON text, not as nested documents: its keys are theirs to choose, and database
 * servers refuse some (FerretDB: empty keys, dots, a leading `$`), which turned a legal A2A data
 * part into an internal error (found by the seam fuzz tests). The database never queries inside
 * these values.
 */
export function toStored(value: unknown): string {
  return JSON.stringify(value);
}

export function fromStored<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
