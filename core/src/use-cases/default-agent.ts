import type { Actor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import { DEFAULT_AGENT_SETTING, type Settings } from '../settings/index.ts';

/**
 * The agent an A2A message naming none goes to (`metadata.skillId` absent): the admin's choice,
 * null meaning "the only one, if there is one". Only an agent published here can be chosen.
 */
export function createDefaultAgent(deps: { settings: Pick<Settings, 'get' | 'set'>; card: () => Promise<{ skills: { id: string }[] }> }) {
  const published = async () => (await deps.card()).skills.map((skill) => skill.id);
  return {
    /** The choice and the agents it may name. */
    async get(): Promise<{ agent: string | null; agents: string[] }> {
      const [agent, agents] = await Promise.all([deps.settings.get<string>(DEFAULT_AGENT_SETTING), published()]);
      return { agent, agents };
    },
    /** Chooses `agent` (admins; audited), or null for none. */
    async set(actor: Actor, agent: string | null): Promise<{ agent: string | null }> {
      if (agent && !(await published()).includes(agent)) throw new DomainError('VALIDATION_FAILED', `No agent ${agent} is published on this host`);
      await deps.settings.set(actor, DEFAULT_AGENT_SETTING, agent);
      return { agent };
    },
  };
}

export type DefaultAgent = ReturnType<typeof createDefaultAgent>;
