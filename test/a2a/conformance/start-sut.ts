/**
 * A system under test for the A2A Technology Compatibility Kit (docs/a2a.md, "Conformance"):
 * a built service on a fresh test database with the example agents published and A2A on, plus
 * an OAuth client. Prints the base URL and a bearer token, then serves until interrupted; with
 * A2A_TOKEN_FILE set, a fresh token is written there every five minutes (tokens live ten).
 *
 *   pnpm build && pnpm exec tsx test/a2a/conformance/start-sut.ts
 *
 * A2A_SUT_GRPC=true also serves the gRPC binding (on a free port; the card lists it).
 * A2A_SUT_REST_ROOT_PROXY=true puts the proxy of rest-root-proxy.ts in front and makes it the
 * service's SERVICE_BASE_URL (the card names it), for the kit's HTTP+JSON client; A2A_SUT_URL is
 * then the proxy's URL.
 */
import { writeFileSync } from 'node:fs';
import { startA2aHost } from '../../helpers/a2a.ts';
import { benchDatabase } from '../../bench/bench-environment.ts';
import { startRootProxy } from './rest-root-proxy.ts';

const database = await benchDatabase(`a2a_tck_${Date.now()}`);
const uri = `mongodb://${database.db.connection.host}:${database.db.connection.port}/${database.db.connection.name}`;
const proxy = process.env.A2A_SUT_REST_ROOT_PROXY === 'true' ? await startRootProxy() : null;
const env: Record<string, string> = {
  ...(process.env.A2A_SUT_GRPC === 'true' ? { SERVICE_A2A_GRPC_PORT: '0' } : {}),
  ...(proxy ? { SERVICE_BASE_URL: proxy.url } : {}),
};
const { service, token, newToken } = await startA2aHost(database.db, { mongodbUri: uri, scope: '@acme', agents: ['summarizer'], env });
proxy?.setTarget(service.url);
console.log(`A2A_SUT_URL=${proxy?.url ?? service.url}`);
console.log(`A2A_AUTH_TOKEN=${token}`);
const tokenFile = process.env.A2A_TOKEN_FILE;
if (tokenFile) {
  writeFileSync(tokenFile, token);
  setInterval(() => void newToken().then((fresh) => writeFileSync(tokenFile, fresh)), 5 * 60_000).unref();
}

const stop = async () => {
  await proxy?.close();
  await service.stop();
  await database.stop();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
