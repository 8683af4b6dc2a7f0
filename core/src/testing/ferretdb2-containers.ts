/**
 * FerretDB 2 + DocumentDB from FerretDB's own images, for machines with Docker but without a
 * FerretDB 2 kit (see docs/operations.md "Test servers"). Chosen by SERVICE_TEST_DATABASE=ferretdb2.
 * Not exercised on the project's CI machines (no Docker there): keep it this small.
 */
export const FERRETDB2_IMAGES = {
  postgres: 'ghcr.io/ferretdb/postgres-documentdb:17-0.106.0-ferretdb-2.5.0',
  ferretdb: 'ghcr.io/ferretdb/ferretdb:2.5.0',
} as const;

export interface StartedFerretdb2 {
  uri: string;
  stop(): Promise<void>;
}

export async function startFerretdb2Containers(): Promise<StartedFerretdb2> {
  const { GenericContainer, Network, Wait } = await import('testcontainers');
  const network = await new Network().start();
  const postgres = await new GenericContainer(FERRETDB2_IMAGES.postgres)
    .withNetwork(network)
    .withNetworkAliases('postgres')
    .withEnvironment({ POSTGRES_USER: 'service', POSTGRES_PASSWORD: 'service', POSTGRES_DB: 'postgres' })
    // As the kit runs it: a sort on `_id` served by the primary key.
    .withCommand(['postgres', '-c', 'documentdb.enableSortbyIdPushDownToPrimaryKey=true'])
    // The image's entrypoint starts PostgreSQL twice (once to create the extension).
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const ferretdb = await new GenericContainer(FERRETDB2_IMAGES.ferretdb)
    .withNetwork(network)
    .withEnvironment({
      FERRETDB_POSTGRESQL_URL: 'postgres://service:service@postgres:5432/postgres',
      FERRETDB_LISTEN_ADDR: ':27017',
      FERRETDB_AUTH: 'false',
      FERRETDB_TELEMETRY: 'disable',
    })
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forListeningPorts())
    .start();
  return {
    uri: `mongodb://${ferretdb.getHost()}:${ferretdb.getMappedPort(27017)}/`,
    async stop() {
      await ferretdb.stop();
      await postgres.stop();
      await network.stop();
    },
  };
}
