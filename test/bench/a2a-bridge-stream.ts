/**
 * Streaming through the outbound bridge: the same remote streams (instance B, a real process)
 * consumed directly by the A2A client vs bridged into A's local event log (each event stored
 * before it is visible locally). Reports events per second both ways and the ratio.
 */
import { randomUUID } from 'node:crypto';
import { testServices } from '@service/core/testing/services';
import { installExampleAgents } from '../helpers/a2a.ts';
import { startService } from '../helpers/service-process.ts';
import { benchDatabase } from './bench-environment.ts';
import { percentile, report, sideBySide } from './harness.ts';
import { recordFigure } from './results.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const dbA = await benchDatabase('bench_bridge_a');
const dbB = await benchDatabase('bench_bridge_b');
const uriOf = (db: typeof dbB) => `mongodb://${db.db.connection.host}:${db.db.connection.port}/${db.db.connection.name}`;
await installExampleAgents(dbB.db, '@globex', ['summarizer']);
const b = await startService({ mongodbUri: uriOf(dbB), env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true' } });
try {
  const admin = { type: 'ui', id: 'bench', email: 'b@bench.test', role: 'admin' } as const;
  const { client, clientSecret } = await testServices(dbB.db).oauth.clients.register(admin, { name: 'a', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  const a = testServices(dbA.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  await a.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: b.url, clientId: client.clientId, clientSecret });
  let direct = 0;
  let bridged = 0;
  const result = await sideBySide(
    'one remote leaf-agent stream (4 events)',
    { iterations: ITERATIONS, warmup: 3 },
    {
      name: 'A2A client reads the remote stream directly',
      run: async () => {
        const message = { id: randomUUID(), role: 'user' as const, parts: [{ type: 'text' as const, text: 'Bench. Stream.' }], metadata: { skillId: '@globex/summarizer' } };
        for await (const _ of a.a2aClient.stream('globex', { message })) direct++;
      },
    },
    {
      name: 'bridged into the local event log',
      run: async () => {
        const run = await a.remote.call(admin, { peerId: 'globex', skillId: '@globex/summarizer', text: 'Bench. Stream.' });
        bridged += (await a.eventLog.readAfter(run.id, 0)).length;
      },
    },
  );
  console.log(`  database: ${dbA.kind}`);
  report(result);
  const eventsPerRun = 4;
  const directRate = (eventsPerRun * 1000) / percentile(result.baselineMs, 50);
  const bridgedRate = (eventsPerRun * 1000) / percentile(result.candidateMs, 50);
  recordFigure({ name: 'events/s read directly', value: directRate, unit: 'events/s' });
  recordFigure({ name: 'events/s bridged into the local event log', value: bridgedRate, unit: 'events/s' });
  console.log(`  events/s: direct ${directRate.toFixed(0)}, bridged ${bridgedRate.toFixed(0)} (${direct} and ${bridged} events seen)`);
} finally {
  await b.stop();
  await dbA.stop();
  await dbB.stop();
}
