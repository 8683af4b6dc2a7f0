/** The subset of JSON Schema a HITL screen form renders: an object of simple properties. */
export interface ScreenField {
  name: string;
  title: string;
  type: 'boolean' | 'number' | 'integer' | 'string';
  required: boolean;
  options?: string[];
  multiline: boolean;
  /** The schema's `maxLength` of a string, as the input's limit. */
  maxLength?: number;
}

export function fieldsOf(schema: Record<string, unknown>): ScreenField[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const type = (['boolean', 'number', 'integer'].includes(String(property.type)) ? property.type : 'string') as ScreenField['type'];
    return {
      name,
      title: typeof property.title === 'string' ? property.title : name,
      type,
      required: required.has(name),
      ...(Array.isArray(property.enum) ? { options: property.enum.map(String) } : {}),
      multiline: type === 'string' && (typeof property.maxLength !== 'number' || property.maxLength > 200),
      ...(type === 'string' && typeof property.maxLength === 'number' ? { maxLength: property.maxLength } : {}),
    };
  });
}

/** Form data → the values object, typed per the schema (unchecked boxes are false; empty optionals are left out). */
export function valuesFrom(form: FormData, schema: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fieldsOf(schema)) {
    const raw = form.get(`field.${field.name}`);
    if (field.type === 'boolean') values[field.name] = raw === 'on';
    else if (raw === null || raw === '') continue;
    else if (field.type === 'number' || field.type === 'integer') values[field.name] = Number(raw);
    else values[field.name] = String(raw);
  }
  return values;
}
