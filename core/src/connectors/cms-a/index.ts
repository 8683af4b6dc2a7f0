import type { LlmProvider } from '../../llm/index.ts';
import type { ConnectorInstances } from '../instances.ts';
import { CMS_A, cmsAPrimitives, createCmsAContentEditor } from './primitives.ts';

/** The CMS-A (Drupal) connector unit: its primitives and its content-editor agent. */
export function cmsAConnector(deps: { instances: ConnectorInstances; llm: () => LlmProvider }) {
  const contentEditor = createCmsAContentEditor(deps);
  return { kind: 'connector' as const, name: CMS_A, contentEditor, primitives: cmsAPrimitives({ instances: deps.instances, contentEditor }) };
}

export { createCmsAClient, type CmsAClient, type CmsANode } from './client.ts';
