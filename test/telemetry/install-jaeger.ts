/** Builds the Jaeger binary the telemetry tests start (`pnpm jaeger:install`); the tests build it on first use otherwise. */
import { ensureJaeger, JAEGER_VERSION } from '../helpers/jaeger-binary.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
try {
  log(`Jaeger ready at ${await ensureJaeger(log)}`);
} catch (error) {
  log(`Jaeger ${JAEGER_VERSION} could not be built: ${(error as Error).message}`);
  process.exit(1);
}
