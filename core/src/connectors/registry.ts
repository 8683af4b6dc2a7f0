import type { AuditLog } from '../audit/index.ts';
import type { AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import { formatPath } from '../agents/findings.ts';
import type { Primitive } from './primitive.ts';

export const PRIMITIVE_ACCESS_DENIED = 'You do not have access to this primitive';

/**
 * The standard authorization gate, checked on every call: admins and the service's own workers
 * may call anything; an OAuth client only what its grants name (the primitive, its connector,
 * or `*`); anyone else (a widget key's route actor included) nothing.
 */
export function mayCallPrimitive(actor: AgentAccessActor, primitive: Pick<Primitive, 'name' | 'connector'>): boolean {
  switch (actor.type) {
    case 'ui':
      return actor.role === 'admin';
    case 'worker':
      return true;
    case 'a2a': {
      const allowed = actor.grants?.allowedPrimitives ?? [];
      return allowed.includes('*') || allowed.includes(primitive.name) || allowed.includes(primitive.connector);
    }
    default:
      return false;
  }
}

/** Every primitive of every connector, called the same way by MCP and by agents. */
export function createPrimitiveRegistry(deps: { primitives: Primitive[]; audit: AuditLog }) {
  const byName = new Map<string, Primitive>();
  for (const primitive of deps.primitives) {
    if (byName.has(primitive.name)) throw new Error(`primitive ${primitive.name} is registered twice`);
    byName.set(primitive.name, primitive);
  }

  async function call(actor: AgentAccessActor, name: string, rawInput: unknown): Promise<unknown> {
    const primitive = byName.get(name);
    if (!primitive) throw new DomainError('NOT_FOUND', `No primitive ${name}`);
    if (!mayCallPrimitive(actor, primitive)) throw new DomainError('FORBIDDEN', PRIMITIVE_ACCESS_DENIED);
    const parsed = primitive.input.safeParse(rawInput ?? {});
    if (!parsed.success) {
      const details = parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), reason: issue.message }));
      throw new DomainError('VALIDATION_FAILED', `Invalid input for ${name}: ${details.map((d) => `${d.path}: ${d.reason}`).join('; ')}`, { details });
    }
    const result = await primitive.handler({ actor }, parsed.data);
    if (primitive.permission === 'write') {
      deps.audit.record(actor, { action: `primitive.${name}`, resourceType: primitive.connector, details: { input: parsed.data as Record<string, unknown> } });
    }
    return result;
  }

  return { call, list: () => [...byName.values()], get: (name: string) => byName.get(name) };
}

export type PrimitiveRegistry = ReturnType<typeof createPrimitiveRegistry>;
