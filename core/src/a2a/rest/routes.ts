/**
 * The paths of the A2A 1.0 HTTP+JSON binding (spec §11.3, the `google.api.http` annotations of
 * a2a.proto), relative to an A2A base (`/api/a2a` or `/a2a/<vendor>/<slug>`), in the seam
 * router's pattern syntax. `/tasks/:task` carries `{id}`, `{id}:cancel` and `{id}:subscribe`.
 */
export const A2A_REST_PATHS = [
  '/message:send',
  '/message:stream',
  '/tasks',
  '/tasks/:task',
  '/tasks/:task/pushNotificationConfigs',
  '/tasks/:task/pushNotificationConfigs/:config',
  '/extendedAgentCard',
] as const;

export type RestOperation = 'send' | 'stream' | 'get' | 'list' | 'cancel' | 'subscribe' | 'push' | 'card';

/**
 * The operation a path under the base names, the task it is about, and the methods it takes
 * (null: no operation of the binding lives there). Subscribe takes GET (a2a.proto) and POST
 * (the spec's §11.3 table and the SDK clients).
 */
export function restOperationOf(rest: string): { operation: RestOperation; task?: string; config?: string; allow: string[] } | null {
  const segments = rest.split('/').slice(1);
  const [head, rawTask, sub, config] = segments;
  if (segments.length === 1) {
    if (head === 'message:send') return { operation: 'send', allow: ['POST'] };
    if (head === 'message:stream') return { operation: 'stream', allow: ['POST'] };
    if (head === 'tasks') return { operation: 'list', allow: ['GET'] };
    if (head === 'extendedAgentCard') return { operation: 'card', allow: ['GET'] };
    return null;
  }
  if (head !== 'tasks' || !rawTask) return null;
  let task: string;
  try {
    task = decodeURIComponent(rawTask);
  } catch {
    return null;
  }
  if (segments.length === 2) {
    const action = /^(.+):(cancel|subscribe)$/.exec(task);
    if (action?.[2] === 'cancel') return { operation: 'cancel', task: action[1]!, allow: ['POST'] };
    if (action?.[2] === 'subscribe') return { operation: 'subscribe', task: action[1]!, allow: ['GET', 'POST'] };
    return { operation: 'get', task, allow: ['GET'] };
  }
  if (sub !== 'pushNotificationConfigs') return null;
  if (segments.length === 3) return { operation: 'push', task, allow: ['GET', 'POST'] };
  if (segments.length === 4 && config) {
    try {
      return { operation: 'push', task, config: decodeURIComponent(config), allow: ['GET', 'DELETE'] };
    } catch {
      return null;
    }
  }
  return null;
}
