import { describe, expect, it } from 'vitest';
import { compileSource, listExamples, loadExample, reviewSource, type AgentSource } from './index.ts';

const scope = '@acme';
const context = (known: Record<string, Record<string, string>> = {}) => ({ vendorScope: scope, knownDependencies: (name: string) => known[name] });

function flowPackage(mutate: (source: { manifest: any; flow: any }) => void = () => {}): AgentSource {
  const source = structuredClone(loadExample('editorial-review', scope)) as { manifest: any; flow: any };
  mutate(source);
  return source;
}

function pathsOf(source: AgentSource, known?: Record<string, Record<string, string>>) {
  const result = reviewSource(source, context(known));
  expect(result.passed).toBe(false);
  return result.findings;
}

describe('example packages', () => {
  it('ships a leaf, a flow with a HITL screen and a sub-agent dependency, and two agents with tools, all passing review', () => {
    expect(listExamples()).toEqual(['editorial-review', 'researcher', 'site-editor', 'summarizer']);
    for (const slug of listExamples()) expect(reviewSource(loadExample(slug, scope), context())).toEqual({ passed: true, findings: [] });
  });

  it('compiles the runtime fields', () => {
    const compiled = compileSource(loadExample('editorial-review', scope), ['1.0.0', '0.9.0']);
    expect(compiled).toMatchObject({
      packageName: '@acme/editorial-review',
      toolName: 'acme__editorial_review',
      type: 'flow',
      agentDependencies: { '@acme/summarizer': '^1.0.0' },
      operativeVersion: '1.0.0',
      supportedVersions: ['1.0.0'],
      card: { id: '@acme/editorial-review', name: 'Editorial review', inputModes: ['text/plain'] },
    });
    expect(compiled.hitlScreens).toEqual([expect.objectContaining({ id: 'approve-summary', schema: expect.objectContaining({ type: 'object' }) })]);
    expect(compileSource(loadExample('summarizer', scope))).toMatchObject({ type: 'leaf', hitlScreens: [], agentDependencies: {} });
  });

  it('keeps earlier versions of the same major supported', () => {
    const source = flowPackage((s) => (s.manifest.version = '1.2.0'));
    expect(compileSource(source, ['1.0.0', '1.1.3', '0.4.0']).supportedVersions).toEqual(['1.0.0', '1.1.3', '1.2.0']);
  });
});

describe('agent_source_review rejects each class of bad package with a finding naming the path', () => {
  it('invalid schema', () => {
    const findings = pathsOf(flowPackage((s) => {
      s.manifest.version = 'one';
      s.flow.type = 'tree';
      delete s.flow.instructions;
    }));
    expect(findings.map((f) => f.path)).toEqual(expect.arrayContaining(['package.json:version', 'flow.json:type', 'flow.json:instructions']));
  });

  it('a when that reads an unknown step, a later step or the step itself; a step after an unconditional reply', () => {
    const findings = pathsOf(flowPackage((s) => {
      s.flow.steps[0].when = 'steps.teaser.output';
      s.flow.steps[1].when = '!steps.nowhere.output.approved';
      delete s.flow.steps[2].when;
      s.flow.steps[3].when = 'steps.teaser.output';
    }));
    expect(findings).toEqual([
      { path: 'flow.json:steps[0].when', reason: '"steps.teaser.output" reads step "teaser", which does not run before this step' },
      { path: 'flow.json:steps[1].when', reason: '"!steps.nowhere.output.approved" names no step of this flow' },
      { path: 'flow.json:steps[3].id', reason: 'step "teaser" never runs: the reply step "not-approved" before it always ends the flow' },
      { path: 'flow.json:steps[3].when', reason: '"steps.teaser.output" reads step "teaser", which does not run before this step' },
    ]);
    expect(pathsOf(flowPackage((s) => (s.flow.steps[2].when = 'approval.approved'))).map((f) => f.path)).toContain('flow.json:steps[2].when');
  });

  it('a call step whose target is not in agentDependencies', () => {
    const findings = pathsOf(flowPackage((s) => (s.flow.steps[0].agent = '@acme/translator')));
    expect(findings).toContainEqual({ path: 'flow.json:steps[0].agent', reason: expect.stringContaining('@acme/translator is not declared') });
  });

  it('a range that is not valid semver', () => {
    const findings = pathsOf(flowPackage((s) => {
      s.manifest.service.agentDependencies['@acme/summarizer'] = 'latest-and-greatest';
      s.flow.steps[0].range = '>>1';
    }));
    expect(findings.map((f) => f.path)).toEqual(['package.json:service.agentDependencies["@acme/summarizer"]', 'flow.json:steps[0].range']);
  });

  it('a HITL schema that is not valid JSON Schema', () => {
    const findings = pathsOf(flowPackage((s) => (s.flow.steps[1].screen.schema = { type: 'objekt', required: 'approved' })));
    expect(findings).toEqual([{ path: 'flow.json:steps[1].screen.schema', reason: expect.stringMatching(/^not a valid JSON Schema/) }]);
  });

  it('a dependency cycle, through packages the instance knows', () => {
    const findings = pathsOf(flowPackage(), { '@acme/summarizer': { '@acme/editorial-review': '^1.0.0' } });
    expect(findings).toEqual([
      { path: 'package.json:service.agentDependencies', reason: 'dependency cycle: @acme/editorial-review → @acme/summarizer → @acme/editorial-review' },
    ]);
  });

  it('a name outside the instance scope', () => {
    const findings = pathsOf(loadExample('summarizer', '@other'));
    expect(findings).toEqual([{ path: 'package.json:name', reason: "scope @other is outside this instance's scope @acme" }]);
  });

  it('a leaf with call steps, an empty flow and duplicate step ids', () => {
    expect(pathsOf(flowPackage((s) => (s.flow.type = 'leaf'))).map((f) => f.path)).toContain('flow.json:type');
    expect(pathsOf(flowPackage((s) => (s.flow.steps = []))).map((f) => f.path)).toContain('flow.json:steps');
    expect(pathsOf(flowPackage((s) => (s.flow.steps[2].id = 'summary'))).map((f) => f.path)).toContain('flow.json:steps[2].id');
  });

  it('is deterministic', () => {
    const bad = flowPackage((s) => (s.flow.steps[0].agent = '@acme/x'));
    expect(reviewSource(bad, context())).toEqual(reviewSource(bad, context()));
  });
});
