import type { OutboundHttp } from '../../http/index.ts';
import type { LlmProvider } from '../../llm/index.ts';
import type { ConnectorInstances } from '../instances.ts';
import { widgetChatTool, type ConnectorUnit } from '../connector-unit.ts';
import { CMS_A, cmsAPrimitives, createCmsAContentEditor, EDITABLE } from './primitives.ts';

/** The CMS-A (Drupal) connector unit: its primitives and its content-editor agent. */
export function cmsAConnector(deps: { instances: ConnectorInstances; http: OutboundHttp; llm: () => LlmProvider }): ConnectorUnit {
  const contentEditor = createCmsAContentEditor(deps);
  return {
    kind: 'connector',
    name: CMS_A,
    contentEditor,
    primitives: cmsAPrimitives({ instances: deps.instances, http: deps.http, contentEditor }),
    widgetEdit: (_actor, input) => contentEditor.edit({ ...input, id: String(input.id) }),
    undoEdit: (actor, input) => contentEditor.undo(actor, input),
    editableFields: EDITABLE,
    widgetChatTool: widgetChatTool(CMS_A, 'node'),
    stream: { slug: 'cms-a-content-editor', widgetAuthKey: 'cms_a_widget_auth' },
  };
}

export { createCmsAClient, type CmsAClient, type CmsANode } from './client.ts';
