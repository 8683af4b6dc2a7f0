/** Struct and Value fields (`metadata`, a part's `data`): the caller's own JSON, kept as sent. */
const OPAQUE_FIELDS = new Set(['metadata', 'data']);

const jsonNameOf = (protoName: string) => protoName.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());

/**
 * A ProtoJSON body with each proto field name (`message_id`) read as its JSON name (`messageId`),
 * as ProtoJSON parsers do ("Parsers accept both the lowerCamelCase name and the original proto
 * field name", protobuf.dev/programming-guides/json). Answers stay camelCase (spec §5.5). When
 * both forms of a name are sent, the JSON name wins.
 */
export function withJsonNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withJsonNames);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = jsonNameOf(key);
    if (name !== key && Object.hasOwn(value, name)) continue;
    out[name] = OPAQUE_FIELDS.has(name) ? field : withJsonNames(field);
  }
  return out;
}
