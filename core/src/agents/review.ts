import { screenSchemaProblem } from './screen-schema.ts';
import semver from 'semver';
import type { AgentSource } from './agent-source.ts';
import { parseSource, type ParsedSource } from './compile.ts';
import { formatPath, type ReviewFinding } from './findings.ts';
import { PACKAGE_NAME, scopeOf } from './names.ts';
import type { FlowDefinition } from './flow-definition.ts';
import { flowTools } from './step-tools.ts';
import { modelToolName, parseToolRef, RESPOND_TOOL } from './tool-refs.ts';
import { conditionStep } from '../step-template/index.ts';

export interface ReviewContext {
  /** The reviewing instance's vendor scope; packages must be named inside it. */
  vendorScope: string;
  /** Agent dependencies of the packages this instance knows, to find cycles through them. */
  knownDependencies: (packageName: string) => Record<string, string> | undefined;
  /** The tools this instance has besides agents: without it, primitive and MCP tool names are checked for form only. */
  knownTools?: KnownTools;
}

/** The connector primitives of this instance, and the tools each registered MCP server listed. */
export interface KnownTools {
  primitives: ReadonlySet<string>;
  /** The tools a registered MCP server listed when it was last asked, or undefined when no server has that id. */
  mcpTools(server: string): readonly string[] | undefined;
}

export interface ReviewResult {
  passed: boolean;
  findings: ReviewFinding[];
}


/** `agent_source_review`: deterministic; the same package and context give the same findings. */
export function reviewSource(source: AgentSource, context: ReviewContext): ReviewResult {
  const parsed = parseSource(source);
  const findings = parsed.ok ? reviewParsed(parsed.parsed, context) : parsed.findings;
  return { passed: findings.length === 0, findings };
}

function reviewParsed({ manifest, flow }: ParsedSource, context: ReviewContext): ReviewFinding[] {
  const findings: ReviewFinding[] = [];
  const flowFile = manifest.service.flow;
  const declared = manifest.service.agentDependencies;

  const scope = scopeOf(manifest.name);
  if (scope !== context.vendorScope) {
    findings.push({ path: 'package.json:name', reason: `scope ${scope} is outside this instance's scope ${context.vendorScope}` });
  }

  for (const [name, range] of Object.entries(declared)) {
    const at = `package.json:${formatPath(['service', 'agentDependencies', name])}`;
    if (!PACKAGE_NAME.test(name)) findings.push({ path: at, reason: `${name} is not a scoped package name @vendor/slug` });
    if (semver.validRange(range) === null) findings.push({ path: at, reason: `"${range}" is not a valid semver range` });
  }

  if (flow.type === 'leaf' && flow.steps.some((step) => step.kind !== 'llm')) {
    findings.push({ path: `${flowFile}:type`, reason: 'a leaf agent runs LLM turns only; use type "flow" for call, ask or reply steps' });
  }
  if (flow.type === 'flow' && flow.steps.length === 0) {
    findings.push({ path: `${flowFile}:steps`, reason: 'a flow needs at least one step' });
  }

  const seenIds = new Set<string>();
  let endedBy: string | null = null;
  flow.steps.forEach((step, index) => {
    const at = (...rest: (string | number)[]) => `${flowFile}:${formatPath(['steps', index, ...rest])}`;
    if (endedBy) findings.push({ path: at('id'), reason: `step "${step.id}" never runs: the reply step "${endedBy}" before it always ends the flow` });
    if (step.when !== undefined) {
      // A condition reads an earlier step's output: a later one (or the step itself) has none yet.
      const read = conditionStep(step.when);
      if (read !== null && !seenIds.has(read)) {
        const later = flow.steps.some((other) => other.id === read);
        findings.push({ path: at('when'), reason: later ? `"${step.when}" reads step "${read}", which does not run before this step` : `"${step.when}" names no step of this flow` });
      }
    }
    if (seenIds.has(step.id)) findings.push({ path: at('id'), reason: `duplicate step id "${step.id}"` });
    seenIds.add(step.id);
    if (step.kind === 'reply' && step.when === undefined) endedBy ??= step.id;

    if (step.kind === 'call') {
      if (!(step.agent in declared)) {
        findings.push({ path: at('agent'), reason: `call target ${step.agent} is not declared in package.json service.agentDependencies` });
      }
      if (step.range !== undefined && semver.validRange(step.range) === null) {
        findings.push({ path: at('range'), reason: `"${step.range}" is not a valid semver range` });
      }
    }
    if (step.kind === 'ask') {
      const problem = screenSchemaProblem(step.screen.schema);
      if (problem) findings.push({ path: at('screen', 'schema'), reason: `not a valid JSON Schema: ${problem}` });
    }
  });

  findings.push(...toolFindings(flow, flowFile, context.knownTools));

  // Agents the flow uses as tools are dependencies as its call targets are: a cycle through them is one too.
  const toolAgents = Object.fromEntries(flowTools(flow).flatMap((tool) => (tool.ref.kind === 'agent' ? [[tool.ref.agent, declared[tool.ref.agent] ?? '*']] : [])));
  const cycle = findCycle(manifest.name, { ...toolAgents, ...declared }, context.knownDependencies);
  if (cycle) {
    findings.push({ path: 'package.json:service.agentDependencies', reason: `dependency cycle: ${cycle.join(' → ')}` });
  }
  return findings;
}

/**
 * The tools a flow names: each a package name (`skills`), a known primitive or a tool a registered
 * MCP server lists (given `known`); model-facing names that do not collide; steps that offer only
 * the flow's tools; output schemas that are JSON Schemas of an object.
 */
function toolFindings(flow: FlowDefinition, flowFile: string, known: KnownTools | undefined): ReviewFinding[] {
  const findings: ReviewFinding[] = [];
  flow.skills.forEach((skill, index) => {
    if (!PACKAGE_NAME.test(skill)) findings.push({ path: `${flowFile}:${formatPath(['skills', index])}`, reason: `${skill} is not a skill or agent package name (@vendor/slug)` });
  });
  (flow.tools ?? []).forEach((entry, index) => {
    const at = `${flowFile}:${formatPath(typeof entry === 'string' ? ['tools', index] : ['tools', index, 'tool'])}`;
    const ref = parseToolRef(typeof entry === 'string' ? entry : entry.tool);
    if (!ref || !known) return;
    if (ref.kind === 'primitive' && !known.primitives.has(ref.name)) findings.push({ path: at, reason: `no connector primitive ${ref.name} on this instance` });
    if (ref.kind === 'mcp') {
      const listed = known.mcpTools(ref.server);
      if (!listed) findings.push({ path: at, reason: `no MCP server "${ref.server}" is registered on this instance` });
      else if (!listed.includes(ref.tool)) findings.push({ path: at, reason: `the MCP server "${ref.server}" lists no tool "${ref.tool}"` });
    }
  });
  const granted = flowTools(flow);
  const byModelName = new Map<string, string>();
  for (const tool of granted) {
    const name = modelToolName(tool.ref);
    const other = byModelName.get(name);
    if (other) findings.push({ path: `${flowFile}:tools`, reason: `${tool.id} and ${other} reach the model under the same name "${name}"` });
    else if (name === RESPOND_TOOL) findings.push({ path: `${flowFile}:tools`, reason: `"${RESPOND_TOOL}" is the name of a structured step's answer, not a tool` });
    byModelName.set(name, tool.id);
  }
  const ids = new Set(granted.map((tool) => tool.id));
  flow.steps.forEach((step, index) => {
    if (step.kind !== 'llm') return;
    step.tools?.forEach((tool, at) => {
      if (!ids.has(tool)) findings.push({ path: `${flowFile}:${formatPath(['steps', index, 'tools', at])}`, reason: `${tool} is not one of the flow's skills or tools` });
    });
    if (step.output !== undefined) {
      const problem = screenSchemaProblem(step.output);
      if (problem) findings.push({ path: `${flowFile}:${formatPath(['steps', index, 'output'])}`, reason: `not a valid JSON Schema: ${problem}` });
      else if (step.output.type !== 'object') findings.push({ path: `${flowFile}:${formatPath(['steps', index, 'output', 'type'])}`, reason: 'an output schema describes an object ("type": "object")' });
    }
  });
  return findings;
}

/** Depth-first search from the package through known dependencies; returns the cycle's path. */
function findCycle(
  root: string,
  rootDependencies: Record<string, string>,
  known: ReviewContext['knownDependencies'],
): string[] | null {
  const visiting = new Set<string>();
  const done = new Set<string>();
  const walk = (name: string, path: string[]): string[] | null => {
    if (name === root && path.length > 0) return [...path, name];
    if (visiting.has(name) || done.has(name)) return null;
    visiting.add(name);
    const deps = name === root ? rootDependencies : (known(name) ?? {});
    for (const next of Object.keys(deps)) {
      const found = walk(next, [...path, name]);
      if (found) return found;
    }
    visiting.delete(name);
    done.add(name);
    return null;
  };
  return walk(root, []);
}
