import { compileSource, loadExample } from '../agents/index.ts';
import type { Database } from '../db/index.ts';
import { createExtensionWriter } from '../extensions/index.ts';

/** Installs example agents into an instance's database as published, public agents of `scope`. */
export async function installExampleAgents(database: Pick<Database, 'models'>, scope: string, slugs: string[] = ['summarizer', 'editorial-review']): Promise<void> {
  const writer = createExtensionWriter(database.models);
  for (const slug of slugs) {
    const source = loadExample(slug, scope);
    const compiled = compileSource(source);
    await writer.install({
      source,
      compiled,
      origin: { packageName: compiled.packageName, version: compiled.version, destinationId: null, scope, visibility: 'public', registryUrl: 'http://registry.invalid/' },
    });
  }
}

/**
 * Installs `name`, an agent of `scope` whose flow is `steps` (the summarizer example's manifest and
 * instructions otherwise), declaring the agents its call steps name in `calls`.
 */
export async function installFlowAgent(database: Pick<Database, 'models'>, scope: string, name: string, steps: unknown[], calls: string[] = [], flowFields: Record<string, unknown> = {}): Promise<void> {
  const example = loadExample('summarizer', scope);
  const base = example.manifest as { service: Record<string, unknown> };
  const manifest = { ...base, name, service: { ...base.service, agentDependencies: Object.fromEntries(calls.map((agent) => [agent, '^1.0.0'])) } };
  const flow = { ...(example.flow as Record<string, unknown>), id: name.split('/')[1], type: 'flow', steps, ...flowFields };
  const source = { manifest, flow } as never;
  await createExtensionWriter(database.models).install({ source, compiled: compileSource(source), origin: { packageName: name, version: '1.0.0', destinationId: null, scope, visibility: 'public', registryUrl: 'http://registry.invalid/' } });
}

/** The steps of a classifier: a structured answer (an LLM step's output schema) that a `when` branches on. */
export const CLASSIFIER_STEPS = [
  { kind: 'llm', id: 'judge', prompt: '{{input}}', output: { type: 'object', properties: { urgent: { type: 'boolean' }, topic: { type: 'string' } }, required: ['urgent', 'topic'] } },
  { kind: 'reply', id: 'urgent', when: 'steps.judge.output.urgent', text: 'Urgent: {{steps.judge.output.topic}}' },
  { kind: 'reply', id: 'later', text: 'Later: {{steps.judge.output.topic}}' },
];
