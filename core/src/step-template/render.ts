/** Fills `{{input}}`, `{{steps.<id>.output}}` and `{{steps.<id>.output.<field>}}` in a step template. */
export function renderTemplate(template: string, context: { input: string; outputs: Record<string, unknown> }): string {
  return template.replace(/\{\{\s*([a-zA-Z0-9_.-]+)\s*\}\}/g, (_match, path: string) => {
    if (path === 'input') return context.input;
    const [head, stepId, output, ...rest] = path.split('.');
    if (head !== 'steps' || !stepId || output !== 'output') return '';
    let value: unknown = context.outputs[stepId];
    for (const key of rest) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
