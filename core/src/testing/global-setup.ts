import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../db/index.ts';
import { createLogger } from '../log/index.ts';

import type {} from './test-database.ts'; // brings the ProvidedContext typing

interface TestServer {
  uri: string;
  kind: string;
  stop(): Promise<void>;
}

/** Kept on globalThis so every project of one vitest run (each loads this file) shares one server. */
const state = ((globalThis as { __serviceTestDatabase?: { server?: Promise<TestServer>; users: number } }).__serviceTestDatabase ??= { users: 0 });

/**
 * The test database, in this order: MONGODB_URI; a mongo:7 container when a Docker engine
 * answers; else FerretDB (found or built once through Go) in a temporary directory.
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
  if (process.env.MONGODB_URI) {
    return { uri: process.env.MONGODB_URI, kind: 'external', stop: async () => {} };
  }
  if (await dockerAnswers()) {
    const { MongoDBContainer } = await import('@testcontainers/mongodb');
    const container = await new MongoDBContainer('mongo:7').start();
    const uri = container.getConnectionString();
    logger.info(`test database: mongo:7 container at ${uri}`);
    return { uri, kind: 'mongo:7', stop: async () => void (await container.stop()) };
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
    kind: embedded.kind,
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
