import { Types } from 'mongoose';
import type { Models } from '../db/index.ts';

/**
 * Names people recognise for stored actors: an admin's email (`ui` actors, by user id) and an OAuth
 * client's name (`a2a` actors, `oauth:<clientId>`). Two `$in` reads for a page of rows; keys are
 * `<type>:<id>`, actors that are neither (workers, routes) or no longer exist have no entry.
 */
export function createActorNames(models: Pick<Models, 'User' | 'OauthClient'>) {
  return async function actorNames(actors: { type: string; id: string }[]): Promise<Map<string, string>> {
    const users = [...new Set(actors.filter((a) => a.type === 'ui' && Types.ObjectId.isValid(a.id)).map((a) => a.id))];
    const clients = [...new Set(actors.filter((a) => a.type === 'a2a' && a.id.startsWith('oauth:')).map((a) => a.id.slice('oauth:'.length)))];
    const [userRows, clientRows] = await Promise.all([
      users.length ? models.User.find({ _id: { $in: users } }, { email: 1 }).lean() : [],
      clients.length ? models.OauthClient.find({ clientId: { $in: clients } }, { clientId: 1, name: 1 }).lean() : [],
    ]);
    return new Map([...userRows.map((u) => [`ui:${String(u._id)}`, u.email] as const), ...clientRows.map((c) => [`a2a:oauth:${c.clientId}`, c.name] as const)]);
  };
}

export type ActorNames = ReturnType<typeof createActorNames>;
