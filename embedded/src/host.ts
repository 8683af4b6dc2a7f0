/**
 * What this package needs from the service that starts it, as shapes rather than imports: the
 * package depends on nothing of `@service/core` (core loads it, ADR 0026), and core's Logger and
 * Sealer fit these.
 */
export interface EmbeddedLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
}

/** Seals the embedded registry's password at rest (core's sealer, under the master key). */
export interface PasswordSealer {
  seal(plaintext: string, label: string): string;
  open(sealed: string, label: string): string;
}
