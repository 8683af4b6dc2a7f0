export type { AgentSource } from './agent-source.ts';
export { manifestSchema, EXTENSION_KINDS, type Manifest, type ExtensionKind } from './manifest.ts';
export { flowDefinitionSchema, stepSchema, type FlowDefinition, type FlowStep, type CallStep, type AskStep } from './flow-definition.ts';
export { compileSource, compileParsed, parseSource, type CompiledTemplate, type ParsedSource } from './compile.ts';
export { reviewSource, type ReviewContext, type ReviewResult } from './review.ts';
export type { ReviewFinding } from './findings.ts';
export { PACKAGE_NAME, scopeOf, slugOf, toolNameOf } from './names.ts';
export { loadExample, listExamples, EXAMPLES_DIR } from './examples.ts';
export { screenValidator, screenSchemaProblem } from './screen-schema.ts';
