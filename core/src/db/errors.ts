/** MongoDB's duplicate-key error (E11000), as both mongod and FerretDB report it. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
