import { ensureJaeger as findOrBuild } from '../../scripts/install-jaeger.mjs';

export { JAEGER_VERSION } from '../../scripts/install-jaeger.mjs';

let ensured: Promise<string> | undefined;

/**
 * The Jaeger v2 binary: found in the Go bin dir, or built there from the Go module proxy once per
 * test process when Go is present (scripts/install-jaeger.mjs); throws saying why not.
 */
export function ensureJaeger(): Promise<string> {
  ensured ??= findOrBuild((line) => process.stderr.write(`${line}\n`));
  return ensured;
}

/** Why Jaeger cannot run here (for `describe.skipIf`), building it first when needed; undefined when it can. */
export async function jaegerSkipReason(): Promise<string | undefined> {
  try {
    await ensureJaeger();
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    process.stderr.write(`${message}\n`);
    // The first line says what failed, the last one (Go's own error) why.
    const lines = message.split('\n').filter((line) => line.trim());
    return lines.length > 1 ? `${lines[0]} ${lines.at(-1)}` : lines[0];
  }
}
