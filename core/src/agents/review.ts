import { screenSchemaProblem } from './screen-schema.ts';
import semver from 'semver';
import type { AgentSource } from './agent-source.ts';
import { parseSource, type ParsedSource } from './compile.ts';
import { formatPath, type ReviewFinding } from './findings.ts';
import { PACKAGE_NAME, scopeOf } from './names.ts';
import { conditionStep } from '../step-template/index.ts';

export interface ReviewContext {
  /** The reviewing instance's vendor scope; packages must be named inside it. */
  vendorScope: string;
  /** Agent dependencies of the packages this instance knows, to find cycles through them. */
  knownDependencies: (packageName: string) => Record<string, string> | undefined;
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

  const cycle = findCycle(manifest.name, declared, context.knownDependencies);
  if (cycle) {
    findings.push({ path: 'package.json:service.agentDependencies', reason: `dependency cycle: ${cycle.join(' → ')}` });
  }
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
