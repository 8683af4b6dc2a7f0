import type { z } from 'zod';
import type { AgentAccessActor } from '../auth/index.ts';

export interface PrimitiveAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
}

export interface PrimitiveContext {
  actor: AgentAccessActor;
  /**
   * The caller's key for this call (an agent's tool call: the same for every try of the call), sent
   * with the write to the CMS, whose plugin answers a repeat with the first write's result.
   */
  idempotencyKey?: string;
}

/**
 * One connector primitive: a named, input-validated operation exposed to MCP clients (and called
 * by agents). `connector` names its unit (`cms_a`, `cms_b`, `service`); grants may name either.
 */
export interface Primitive<Input extends z.ZodObject = z.ZodObject, Output = unknown> {
  name: string;
  connector: string;
  title?: string;
  description: string;
  input: Input;
  /** What the handler returns, declared to MCP clients as the tool's output schema. */
  output?: z.ZodType<Output>;
  annotations: PrimitiveAnnotations;
  /** Writes are audited after they succeed. */
  permission: 'read' | 'write';
  handler(context: PrimitiveContext, input: z.infer<Input>): Promise<Output>;
  /** For a content write: the typed field diff it would make, read from the item without writing (an approval shows it). */
  preview?(context: PrimitiveContext, input: z.infer<Input>): Promise<{ field: string; before: unknown; after: unknown }[]>;
}

export function definePrimitive<Input extends z.ZodObject, Output>(primitive: Primitive<Input, Output>): Primitive<Input, Output> {
  if (!/^[a-z][a-z0-9_]{2,63}$/.test(primitive.name)) throw new Error(`primitive name "${primitive.name}" must be snake_case`);
  if (!primitive.name.startsWith(`${primitive.connector}_`)) throw new Error(`primitive ${primitive.name} must start with its connector's name ${primitive.connector}_`);
  return primitive;
}
