import type { LlmProvider } from '../../llm/index.ts';
import type { ConnectorInstances } from '../instances.ts';
import { widgetChatTool, type ConnectorUnit } from '../connector-unit.ts';
import { createCmsBContentEditor } from './content-editor.ts';
import { cmsBPrimitives, CMS_B } from './primitives.ts';

/** The CMS-B (WordPress) connector unit: its primitives and its content-editor agent. */
export function cmsBConnector(deps: { instances: ConnectorInstances; llm: () => LlmProvider }): ConnectorUnit {
  const contentEditor = createCmsBContentEditor(deps);
  return {
    kind: 'connector',
    name: CMS_B,
    contentEditor,
    primitives: cmsBPrimitives({ instances: deps.instances, contentEditor }),
    restore: (actor, input) => contentEditor.restore(actor, { ...input, id: Number(input.id) }),
    widgetChatTool: widgetChatTool(CMS_B, 'post'),
    stream: { slug: 'cms-b-content-editor', widgetAuthKey: 'cms_b_widget_auth' },
  };
}

export { createCmsBClient, type CmsBClient, type CmsBPost } from './client.ts';
export { postId } from './schemas.ts';

