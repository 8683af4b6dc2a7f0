import { summariseInput, type AuditLog } from '../audit/index.ts';
import { mayActorDo, type AgentAccessActor } from '../auth/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import { inSpan } from '../telemetry/index.ts';
import type { Primitive, PrimitiveContext } from './primitive.ts';

export const PRIMITIVE_ACCESS_DENIED = 'You do not have access to this primitive';

/**
 * The standard authorization gate, checked on every call: admins and the service's own workers
 * may call anything; an OAuth client only what its grants name (the primitive, its connector,
 * or `*`); anyone else (a widget key's route actor included) nothing.
 */
export function mayCallPrimitive(actor: AgentAccessActor, primitive: Pick<Primitive, 'name' | 'connector'>): boolean {
  return mayActorDo(actor, ({ allowedPrimitives = [] }) => allowedPrimitives.includes('*') || allowedPrimitives.includes(primitive.name) || allowedPrimitives.includes(primitive.connector));
}

/** Every primitive of every connector, called the same way by MCP and by agents. */
export function createPrimitiveRegistry(deps: { primitives: Primitive[]; audit: AuditLog }) {
  const byName = new Map<string, Primitive>();
  for (const primitive of deps.primitives) {
    if (byName.has(primitive.name)) throw new Error(`primitive ${primitive.name} is registered twice`);
    byName.set(primitive.name, primitive);
  }

  /**
   * Each call is an `execute_tool` span (GenAI conventions): the tool, its connector, never its
   * input or output; `traced: false` when the caller's span is that one already (an agent's tool
   * call). `idempotencyKey` goes to the CMS with a write.
   */
  function call(actor: AgentAccessActor, name: string, rawInput: unknown, options: { idempotencyKey?: string; traced?: boolean } = {}): Promise<unknown> {
    const context: PrimitiveContext = { actor, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) };
    if (options.traced === false) return callTool(context, name, rawInput);
    return inSpan(`execute_tool ${name}`, { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'service.actor.type': actor.type } }, () => callTool(context, name, rawInput));
  }

  /** The primitive, if the actor may call it and the input is valid for it (the checks a call makes first). */
  function checked(actor: AgentAccessActor, name: string, rawInput: unknown) {
    const primitive = byName.get(name);
    if (!primitive) throw new DomainError('NOT_FOUND', `No primitive ${name}`);
    if (!mayCallPrimitive(actor, primitive)) throw new DomainError('FORBIDDEN', PRIMITIVE_ACCESS_DENIED);
    return { primitive, input: parseOrThrow(primitive.input, rawInput ?? {}, `Invalid input for ${name}`) };
  }

  /** What a content write would change, through the same gate and validation as the call; null for a primitive that cannot tell. */
  async function preview(actor: AgentAccessActor, name: string, rawInput: unknown): Promise<{ field: string; before: unknown; after: unknown }[] | null> {
    const { primitive, input } = checked(actor, name, rawInput);
    return primitive.preview ? primitive.preview({ actor }, input) : null;
  }

  async function callTool(context: PrimitiveContext, name: string, rawInput: unknown): Promise<unknown> {
    const { actor } = context;
    const { primitive, input } = checked(actor, name, rawInput);
    const result = await primitive.handler(context, input);
    if (primitive.permission === 'write') {
      // The row names the instance and item; the input is kept as a bounded summary, never whole.
      const { instanceId, id } = input as { instanceId?: unknown; id?: unknown };
      const resourceId = [instanceId, id].filter((part) => typeof part === 'string' || typeof part === 'number').join('/');
      deps.audit.record(actor, { action: `primitive.${name}`, resourceType: primitive.connector, ...(resourceId ? { resourceId } : {}), details: { input: summariseInput(input) } });
    }
    // After the audit: a write that happened is recorded even when its answer is refused.
    if (primitive.output) {
      // The declared output schema is a promise to MCP clients: an answer that breaks it (a CMS site
      // answering an unexpected shape) is refused here, as the MCP SDK would refuse it, for every caller.
      const checked = primitive.output.safeParse(result);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        throw new DomainError('UPSTREAM_FAILED', `${name} answered an unexpected shape: ${issue.path.join('.') || '(result)'} ${issue.message}`);
      }
    }
    return result;
  }

  return { call, preview, list: () => [...byName.values()], get: (name: string) => byName.get(name) };
}

export type PrimitiveRegistry = ReturnType<typeof createPrimitiveRegistry>;
