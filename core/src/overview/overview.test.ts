import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../ids/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createOverview } from './overview.ts';

const t = useTestDatabase();

describe('the overview status', () => {
  it('counts the last day\'s runs and failures (heads only), live clients, connected sites and widget keys', async () => {
    const { Run, OauthClient, ConnectorInstance } = t.db.models;
    const head = (at: number, state: string) => ({ _id: uuidv7(at), contextId: 'c', agent: '@a/b', state, lastSeq: 1, actorType: 'a2a', actorId: 'x', input: '{}', status: '{}', artifacts: [], progress: '{}' });
    const now = Date.now();
    const recent = head(now - 60_000, 'failed');
    await Run.collection.insertMany([head(now - 3 * 86_400_000, 'failed'), recent, head(now - 120_000, 'completed')] as never[]);
    await OauthClient.create([
      { clientId: 'svc_a', name: 'a', secretHash: 'x', secretRotatedAt: new Date(), allowedAgents: [], permissions: [], createdBy: 'x' },
      { clientId: 'svc_b', name: 'b', secretHash: 'x', secretRotatedAt: new Date(), allowedAgents: [], permissions: [], createdBy: 'x', revokedAt: new Date() },
    ]);
    await ConnectorInstance.collection.insertMany([
      { _id: 'site-1', connector: 'cms_b', name: 's', siteUrl: 'https://s.test', widget: { keyHash: 'h' } },
      { _id: 'site-2', connector: 'cms_a', name: 't', siteUrl: 'https://t.test', widget: { keyHash: null } },
    ] as never[]);
    expect(await createOverview(t.db.models)(now)).toEqual({ runsLastDay: 2, failedLastDay: 1, clients: 1, connectorInstances: 2, widgetKeys: 1 });
  });
});
