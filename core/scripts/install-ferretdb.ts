/** Installs the FerretDB binary the embedded default and the test database use (`pnpm db:install`). */
import '../src/node-engine/require.ts';
import { ensureFerretdb, FERRETDB_VERSION } from '@service/embedded';
import { createLogger } from '../src/log/index.ts';

const logger = createLogger({ level: 'info' });
const binary = await ensureFerretdb(logger);
if (!binary) {
  logger.error(`FerretDB ${FERRETDB_VERSION} is not installed and there is no \`go\` to build it; the embedded default then needs a mongod (cached, or downloaded from MongoDB)`);
  process.exit(1);
}
logger.info(`FerretDB ready at ${binary}`);
