import semver from 'semver';
import { DomainError } from '../errors/index.ts';
import type { AgentSource } from './agent-source.ts';
import { flowDefinitionSchema, type FlowDefinition } from './flow-definition.ts';
import { manifestSchema, type ExtensionKind, type Manifest } from './manifest.ts';
import { toolNameOf } from './names.ts';
import { flowTools } from './step-tools.ts';
import { schemaFindings, type ReviewFinding } from './findings.ts';

/** The runtime fields derived from a package: what the AgentCard and the runtime read. */
export interface CompiledTemplate {
  packageName: string;
  version: string;
  kind: ExtensionKind;
  card: { id: string; name: string; description: string; tags: string[]; inputModes: string[]; outputModes: string[] };
  toolName: string;
  type: FlowDefinition['type'];
  hitlScreens: { id: string; title: string; schema: Record<string, unknown> }[];
  agentDependencies: Record<string, string>;
  skills: string[];
  operativeVersion: string;
  supportedVersions: string[];
}

export interface ParsedSource {
  manifest: Manifest;
  flow: FlowDefinition;
}

/** Parses both files, or returns every schema finding with its path. */
export function parseSource(source: AgentSource): { ok: true; parsed: ParsedSource } | { ok: false; findings: ReviewFinding[] } {
  const manifest = manifestSchema.safeParse(source.manifest);
  const flow = flowDefinitionSchema.safeParse(source.flow);
  if (manifest.success && flow.success) return { ok: true, parsed: { manifest: manifest.data, flow: flow.data } };
  const flowFile = manifest.success ? manifest.data.service.flow : 'flow.json';
  return {
    ok: false,
    findings: [...(manifest.success ? [] : schemaFindings('package.json', manifest.error)), ...(flow.success ? [] : schemaFindings(flowFile, flow.error))],
  };
}

/**
 * `agent_source_compile`: derives the runtime fields. `previousVersions` are the versions this
 * instance already supports for the package; those on the same major line stay supported.
 */
export function compileSource(source: AgentSource, previousVersions: string[] = []): CompiledTemplate {
  const result = parseSource(source);
  if (!result.ok) {
    throw new DomainError('REVIEW_FAILED', 'The package does not match the extension schema', { details: result.findings });
  }
  return compileParsed(result.parsed, previousVersions);
}

export function compileParsed({ manifest, flow }: ParsedSource, previousVersions: string[] = []): CompiledTemplate {
  const declared = manifest.service.agentDependencies;
  const agentDependencies: Record<string, string> = {};
  for (const step of flow.steps) {
    if (step.kind === 'call') agentDependencies[step.agent] = step.range ?? declared[step.agent] ?? '*';
  }
  // Agents used as tools are dependencies too: a caller resolves them before invoking this agent.
  for (const tool of flowTools(flow)) {
    if (tool.ref.kind === 'agent' && tool.ref.agent !== manifest.name) agentDependencies[tool.ref.agent] ??= declared[tool.ref.agent] ?? '*';
  }
  const major = semver.major(manifest.version);
  const supportedVersions = [...new Set([...previousVersions.filter((v) => semver.valid(v) && semver.major(v) === major), manifest.version])].sort(semver.compare);
  return {
    packageName: manifest.name,
    version: manifest.version,
    kind: manifest.service.kind,
    card: {
      id: manifest.name,
      name: flow.name,
      description: flow.description,
      tags: flow.tags,
      inputModes: flow.inputModes,
      outputModes: flow.outputModes,
    },
    toolName: toolNameOf(manifest.name),
    type: flow.type,
    hitlScreens: flow.steps.flatMap((step) => (step.kind === 'ask' ? [{ id: step.screen.id, title: step.screen.title, schema: step.screen.schema }] : [])),
    agentDependencies,
    skills: flow.skills,
    operativeVersion: manifest.version,
    supportedVersions,
  };
}
