import type { LlmProvider } from '../../llm/index.ts';
import type { ConnectorInstances } from '../instances.ts';
import { createCmsBContentEditor } from './content-editor.ts';
import { cmsBPrimitives, CMS_B } from './primitives.ts';

/** The CMS-B (WordPress) connector unit: its primitives and its content-editor agent. */
export function cmsBConnector(deps: { instances: ConnectorInstances; llm: () => LlmProvider }) {
  const contentEditor = createCmsBContentEditor(deps);
  return { kind: 'connector' as const, name: CMS_B, contentEditor, primitives: cmsBPrimitives({ instances: deps.instances, contentEditor }) };
}

export { createCmsBClient, type CmsBClient, type CmsBPost } from './client.ts';
export { postId } from './schemas.ts';

