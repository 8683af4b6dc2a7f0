import type { OutboundHttp } from '../../http/index.ts';
import type { LlmProvider } from '../../llm/index.ts';
import type { ConnectorInstances } from '../instances.ts';
import { widgetChatTool, type ConnectorUnit } from '../connector-unit.ts';
import { createCmsBContentEditor } from './content-editor.ts';
import { cmsBPrimitives } from './primitives.ts';
import { EDITABLE_FIELDS } from './schemas.ts';
import { CMS_B, cmsBClientFor, type SiteEvents } from './site.ts';
import { isLivePost } from '../../live-post/index.ts';

/** The CMS-B (WordPress) connector unit: its primitives and its content-editor agent. */
export function cmsBConnector(deps: { instances: ConnectorInstances; http: OutboundHttp; llm: () => LlmProvider; events?: SiteEvents }): ConnectorUnit {
  const events: SiteEvents = deps.events ?? (() => {});
  const contentEditor = createCmsBContentEditor({ ...deps, events });
  return {
    kind: 'connector',
    name: CMS_B,
    contentEditor,
    primitives: cmsBPrimitives({ instances: deps.instances, http: deps.http, contentEditor, events }),
    widgetEdit: (_actor, input) => contentEditor.edit({ ...input, id: Number(input.id) }),
    undoEdit: (actor, input) => contentEditor.undo(actor, input),
    // The content editor demotes a live post before it edits it: visitors stop seeing it.
    editChangesLive: async (_actor, input) => isLivePost((await (await cmsBClientFor(deps, input.instanceId)).getPost(Number(input.id))).status),
    editableFields: EDITABLE_FIELDS,
    widgetChatTool: widgetChatTool(CMS_B, 'post'),
    stream: { slug: 'cms-b-content-editor', widgetAuthKey: 'cms_b_widget_auth' },
  };
}

export { createCmsBClient, type CmsBClient, type CmsBPost } from './client.ts';
export { postId } from './schemas.ts';
