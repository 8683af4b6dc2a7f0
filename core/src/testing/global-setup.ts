import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '@service/embedded';
import { createDatabase, detectServerKind, type ServerKind } from '../db/index.ts';
import { createLogger, type Logger } from '../log/index.ts';

import type {} from './test-database.ts'; // brings the ProvidedContext typing

interface TestServer {
  uri: string;
  kind: ServerKind;
  stop(): Promise<void>;
}

type StartedServer = Omit<TestServer, 'kind'> & { description: string };

/** Kept on globalThis so every project of one vitest run (each loads this file) shares one server. */
const state = ((globalThis as { __serviceTestDatabase?: { server?: Promise<TestServer>; users: number } }).__serviceTestDatabase ??= { users: 0 });

/**
 * The test database, in this order: MONGODB_URI; FerretDB 2 from FerretDB's images when
 * SERVICE_TEST_DATABASE=ferretdb2; a mongo:7 container when a Docker engine answers; else
 * FerretDB (found or built once through Go) in a temporary directory. Tests learn which kind of
 * server it is (`inject('mongoKind')`), asked from the server itself.
 */
export default async function setup(project: TestProject) {
  if (state.users === 0) createLogger({ level: 'info' }).info(`tests run on Node ${process.version}`, { execPath: process.execPath });
  state.server ??= startTestServer();
  state.users++;
  const server = await state.server;
  project.provide('mongoUri', server.uri);
  project.provide('mongoKind', server.kind);
  return async () => {
    if (--state.users === 0) await server.stop();
  };
}

async function startTestServer(): Promise<TestServer> {
  const logger = createLogger({ level: 'info' });
  const server = await startServer(logger);
  try {
    const kind = await serverKindAt(server.uri);
    logger.info(`test database: ${server.description} (${kind})`);
    return { ...server, kind };
  } catch (error) {
    await server.stop();
    throw new Error(`test database ${server.description} did not answer buildInfo: ${(error as Error).message}`);
  }
}

async function startServer(logger: Logger): Promise<StartedServer> {
  if (process.env.MONGODB_URI) {
    return { uri: process.env.MONGODB_URI, description: 'MONGODB_URI', stop: async () => {} };
  }
  if (process.env.SERVICE_TEST_DATABASE === 'ferretdb2') {
    if (!(await dockerAnswers())) throw new Error('SERVICE_TEST_DATABASE=ferretdb2 starts FerretDB 2 from Docker images, but no Docker engine answers');
    const { FERRETDB2_IMAGES, startFerretdb2Containers } = await import('./ferretdb2-containers.ts');
    const started = await startFerretdb2Containers();
    return { ...started, description: `${FERRETDB2_IMAGES.ferretdb} on ${FERRETDB2_IMAGES.postgres} containers at ${started.uri}` };
  }
  if (await dockerAnswers()) {
    const { MongoDBContainer } = await import('@testcontainers/mongodb');
    const container = await new MongoDBContainer('mongo:7').start();
    const uri = container.getConnectionString();
    return { uri, description: `mongo:7 container at ${uri}`, stop: async () => void (await container.stop()) };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'service-test-db-'));
  let embedded: EmbeddedDatabase;
  try {
    embedded = await startEmbeddedDatabase({ dataDir: dir, logger });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    uri: embedded.uri,
    description: `embedded ${embedded.description}`,
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function serverKindAt(uri: string): Promise<ServerKind> {
  const database = createDatabase(uri);
  try {
    await database.connection.asPromise();
    return await detectServerKind(database.connection.db!);
  } finally {
    await database.close();
  }
}

async function dockerAnswers(): Promise<boolean> {
  const socket = process.env.DOCKER_HOST ?? (existsSync('/var/run/docker.sock') ? 'unix:///var/run/docker.sock' : undefined);
  if (!socket) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}
