import type { Models } from '../db/index.ts';
import { uuidv7Floor } from '../ids/index.ts';

export interface OverviewStatus {
  runsLastDay: number;
  failedLastDay: number;
  /** OAuth clients not revoked. */
  clients: number;
  connectorInstances: number;
  widgetKeys: number;
}

/**
 * The Overview's live state: runs of the last day (an `_id` range, runs ids being UUIDv7, counted
 * by the server) and the handful of configuration rows the getting-started checklist names.
 */
export function createOverview(models: Pick<Models, 'Run' | 'OauthClient' | 'ConnectorInstance'>) {
  return async function status(now = Date.now()): Promise<OverviewStatus> {
    const lastDay = { _id: { $gte: uuidv7Floor(now - 86_400_000) } };
    const [runsLastDay, failedLastDay, clients, connectorInstances, widgetKeys] = await Promise.all([
      models.Run.countDocuments(lastDay),
      models.Run.countDocuments({ ...lastDay, state: 'failed' }),
      models.OauthClient.countDocuments({ revokedAt: null }),
      models.ConnectorInstance.countDocuments({}),
      models.ConnectorInstance.countDocuments({ 'widget.keyHash': { $ne: null } }),
    ]);
    return { runsLastDay, failedLastDay, clients, connectorInstances, widgetKeys };
  };
}
