import type { AgentAccessActor } from '../auth/index.ts';
import type { LlmToolDefinition } from '../llm/index.ts';
import type { ContentEditorResult, RecordedChange, WidgetEditResult } from './content-edit.ts';
import type { Primitive } from './primitive.ts';

/**
 * Everything one CMS brings: its primitives, its content-editor agent, the function tool the
 * widget's LLM turn is given, and its entry in the per-slug stream registry. Adding a CMS means
 * adding one such unit (docs/adding-a-cms.md).
 */
export interface ConnectorUnit {
  kind: 'connector';
  /** `cms_a`, `cms_b`: the prefix of every primitive and the name grants may use. */
  name: string;
  primitives: Primitive[];
  /** Called through its `<name>_content_editor_run` primitive, which validates the input. */
  contentEditor: { run(actor: AgentAccessActor, input: never): Promise<ContentEditorResult> };
  /** The widget's edit: the content editor's run on input its primitive validated, with the state the edit left (recorded for its Undo). */
  widgetEdit(actor: AgentAccessActor, input: { instanceId: string; id: string | number; task: string }): Promise<WidgetEditResult>;
  /**
   * The widget's Undo of one recorded edit: writes the recorded `before` values back when the item
   * still holds what the edit left (fields and state), and returns the diff read back; otherwise
   * throws CONFLICT having written nothing.
   */
  undoEdit(actor: AgentAccessActor, input: RecordedChange): Promise<ContentEditorResult>;
  /**
   * Whether the widget's edit of this item would change what visitors see now (CMS-B: a live post
   * is demoted to a draft before it is edited). Such an edit needs the user's yes (`confirmLiveEdit`);
   * a connector that never touches the live item (CMS-A edits a draft revision) has none.
   */
  editChangesLive?(actor: AgentAccessActor, input: { instanceId: string; id: string | number }): Promise<boolean>;
  /** The fields its content editor changes, in the order the widget's hints name them (title first). */
  editableFields: readonly string[];
  /** The function tool of the widget chat; calling it runs `<name>_content_editor_run`. */
  widgetChatTool: LlmToolDefinition & { primitive: string };
  /** The stream route `/api/agents/<slug>/stream` serves this connector's widget. */
  stream: { slug: string; widgetAuthKey: string };
}

/** The widget-chat tool every connector offers the widget's LLM: one edit task on the open item. */
export function widgetChatTool(connector: string, itemWord: string): ConnectorUnit['widgetChatTool'] {
  return {
    name: 'edit_content',
    primitive: `${connector}_content_editor_run`,
    description: `Edit the ${itemWord} the user has open: describe the change as a task (for example: set title to "…"). The change is written to a draft and shown to the user as a diff.`,
    parameters: { type: 'object', properties: { task: { type: 'string', description: 'What to change, in plain words' } }, required: ['task'] },
  };
}

/** The per-slug stream registry built from the connector units; an unknown slug finds nothing. */
export function createStreamRegistry(units: ConnectorUnit[]) {
  const bySlug = new Map(units.map((unit) => [unit.stream.slug, unit]));
  return { get: (slug: string) => bySlug.get(slug) ?? null, slugs: () => [...bySlug.keys()] };
}

export type StreamRegistry = ReturnType<typeof createStreamRegistry>;
