import { z } from 'zod';
import type { PushConfigInput, PushConfigView } from './configs.ts';

const taskId = z.string().min(1).max(200);
const configId = z.string().min(1).max(200);
/** Fields are checked in detail where the config is set (configs.ts); here only their place. */
const loose = z.unknown().optional();

/** 1.0 `CreateTaskPushNotificationConfig` params: a TaskPushNotificationConfig (a2a.proto), the task's id in it. */
export const createConfigV1Schema = z.object({ tenant: z.string().optional(), taskId, id: loose, url: loose, token: loose, authentication: loose });
export const configRefV1Schema = z.object({ tenant: z.string().optional(), taskId, id: configId });
export const listConfigsV1Schema = z.object({ tenant: z.string().optional(), taskId, pageSize: z.number().int().optional(), pageToken: z.string().max(1000).optional() });

export const configInputFromV1 = (p: z.infer<typeof createConfigV1Schema>): PushConfigInput => ({ ...(p.id !== undefined ? { id: p.id } : {}), url: p.url, ...(p.token !== undefined ? { token: p.token } : {}), ...(p.authentication !== undefined ? { authentication: p.authentication } : {}) }) as PushConfigInput;

/** A config in 1.0 shape. The token and credentials were write-only: they are not shown. */
export const configToV1 = (view: PushConfigView) => ({ id: view.id, taskId: view.taskId, url: view.url, ...(view.authentication ? { authentication: view.authentication } : {}) });

/** 0.3 `tasks/pushNotificationConfig/set` params: TaskPushNotificationConfig of 0.3. */
export const setConfig03Schema = z.object({
  taskId,
  pushNotificationConfig: z.object({
    id: loose,
    url: loose,
    token: loose,
    authentication: z.object({ schemes: z.array(z.string()).min(1).max(10), credentials: loose }).optional(),
  }),
});
/** `get` names the config, or (without `pushNotificationConfigId`) means the one whose id is the task's. */
export const getConfig03Schema = z.object({ id: taskId, pushNotificationConfigId: configId.optional(), metadata: z.record(z.string(), z.unknown()).optional() });
export const listConfigs03Schema = z.object({ id: taskId, metadata: z.record(z.string(), z.unknown()).optional() });
export const deleteConfig03Schema = z.object({ id: taskId, pushNotificationConfigId: configId, metadata: z.record(z.string(), z.unknown()).optional() });

/** A 0.3 PushNotificationConfig (of a set, or sent with a message) as the service reads it; `authentication.schemes[0]` is the scheme used. */
export function configInputFrom03(value: unknown): PushConfigInput {
  const config = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as { id?: unknown; url?: unknown; token?: unknown; authentication?: { schemes?: unknown; credentials?: unknown } };
  const schemes = config.authentication?.schemes;
  return {
    ...(config.id !== undefined ? { id: config.id } : {}),
    url: config.url,
    ...(config.token !== undefined ? { token: config.token } : {}),
    ...(config.authentication ? { authentication: { scheme: Array.isArray(schemes) ? schemes[0] : schemes, ...(config.authentication.credentials !== undefined ? { credentials: config.authentication.credentials } : {}) } } : {}),
  } as PushConfigInput;
}

export const configTo03 = (view: PushConfigView) => ({
  taskId: view.taskId,
  pushNotificationConfig: { id: view.id, url: view.url, ...(view.authentication ? { authentication: { schemes: [view.authentication.scheme] } } : {}) },
});

/** A config sent with a message (`configuration.taskPushNotificationConfig`, or the older `pushNotificationConfig`): its fields, checked where it is set. */
export function configInputFromSend(value: unknown): PushConfigInput {
  const config = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  return { ...(config.id !== undefined ? { id: config.id } : {}), url: config.url, ...(config.token !== undefined ? { token: config.token } : {}), ...(config.authentication !== undefined ? { authentication: config.authentication } : {}) } as PushConfigInput;
}
