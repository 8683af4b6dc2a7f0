import { z } from 'zod';

/**
 * Zod spellings whose JSON Schema (what MCP `tools/list` publishes) is portable across MCP
 * clients (ADR 0037). Zod writes an open object's other members as `additionalProperties: {}` and
 * folds a union of bare types into a `type` array such as `["string", "null"]`; both are legal
 * JSON Schema, but the MCP Inspector's `--strict` lint flags them and clients that map tool schemas
 * onto a single-`type` dialect may reject the tool. Validation in zod is unchanged.
 */

/** An object with the given members that may carry others of any value: `additionalProperties: true`. */
export const openObject = <Shape extends z.ZodRawShape>(shape: Shape) => z.looseObject(shape).meta({ additionalProperties: true });

/** A string-keyed map of any JSON values: `additionalProperties: true`. */
export const openRecord = () => z.record(z.string(), z.unknown()).meta({ additionalProperties: true });

/**
 * `schema` or `null`, published as `anyOf: [<schema>, {type: "null", description}]`. The null
 * branch says what null means; that also keeps zod from folding the branches into a `type` array.
 */
export const orNull = <T extends z.ZodType>(schema: T, meaning: string) => z.union([schema, z.null().describe(meaning)]);
