/**
 * Where a configuration error that blocks a task is fixed. A refusal carrying one of these
 * codes, or naming the page in its message, is shown with a link to that page.
 */
const FIXES: { test: (failure: { code?: string | undefined; message: string }) => boolean; to: string; label: string }[] = [
  { test: (f) => f.code === 'REGISTRY_NOT_CONFIGURED' || /Environment › Registries|deployment config malformed/.test(f.message), to: '/administration/environment/registries', label: 'Configure the registries' },
  { test: (f) => /A2A over HTTP is off/.test(f.message), to: '/administration#switches', label: 'Turn A2A over HTTP on' },
  { test: (f) => /Assistants ›|no LLM|LLM provider/i.test(f.message), to: '/administration/assistants/cms-a-widget', label: 'Configure the assistant' },
  { test: (f) => /Connectors ›|connector instance .*not (?:connected|configured)/i.test(f.message), to: '/administration/connectors/cms-a-widget', label: 'Configure the connector' },
];

export function fixFor(failure: { code?: string | undefined; message: string }): { to: string; label: string } | null {
  const fix = FIXES.find((candidate) => candidate.test(failure));
  return fix ? { to: fix.to, label: fix.label } : null;
}
