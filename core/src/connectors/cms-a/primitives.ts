import { z } from 'zod';
import { DomainError } from '../../errors/index.ts';
import type { AgentAccessActor } from '../../auth/index.ts';
import type { LlmProvider } from '../../llm/index.ts';
import { proposeEdits } from '../../llm/index.ts';
import { changedSinceError, contentEditorResultOutput, diffFields, editStep, fieldsChangedSince, valuesToRestore, type ContentEditorResult, type ItemState, type RecordedChange, type WidgetEditResult } from '../content-edit.ts';
import { instanceId, type ConnectorInstances } from '../instances.ts';
import { definePrimitive, type Primitive, type PrimitiveContext } from '../primitive.ts';
import { instancesListPrimitive, READ_ONLY, statusPrimitive, WRITE_ADDITIVE, WRITE_IDEMPOTENT } from '../standard-primitives.ts';
import { createCmsAClient, nodeOutput, type CmsAClient, type CmsANode } from './client.ts';
import type { OutboundHttp } from '../../http/index.ts';

export const CMS_A = 'cms_a';

/** CMS-A node ids are strings; alphanumeric ids are allowed, and a number is taken as its digits. */
const nodeId = z.preprocess((value) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? String(value) : value), z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a node id (letters, digits, _ or -)'));
export const EDITABLE = ['title', 'body', 'summary'] as const;

/** The site's client for one call; a caller's key (an agent's tool call) keys its writes. */
async function clientFor(deps: { instances: ConnectorInstances; http: OutboundHttp }, id: string, idempotencyKey?: string): Promise<CmsAClient> {
  const instance = await deps.instances.withCredential(CMS_A, id);
  return createCmsAClient({ siteUrl: instance.siteUrl, mcpKey: instance.credential }, deps.http, idempotencyKey ? { idempotencyKey } : {});
}

async function getWithEditContext(client: CmsAClient, nid: string): Promise<CmsANode> {
  const [node] = await client.search({ nid, editContext: true, limit: 1 });
  if (!node) throw new DomainError('NOT_FOUND', `No node ${nid}`);
  return node;
}

const fieldsOf = (node: CmsANode) => ({ title: node.title, body: node.fields.body ?? '', summary: node.fields.summary ?? '' });
/** What an edit left beyond the fields: the latest revision's status and id, and the published revision's id. */
const stateOf = (node: CmsANode): ItemState => ({ status: node.status, revisionId: node.revisionId, publishedRevisionId: node.publishedRevisionId });

/**
 * The CMS-A content editor: a true draft revision first (the published revision is never
 * touched), LLM edits through set_fields, written to the draft, diff read back.
 */
export function createCmsAContentEditor(deps: { instances: ConnectorInstances; http: OutboundHttp; llm: () => LlmProvider }) {
  async function edit(input: { instanceId: string; id: string; task: string }, idempotencyKey?: string): Promise<WidgetEditResult> {
    const client = await editStep('connect', () => clientFor(deps, input.instanceId, idempotencyKey));
    const current = await editStep('read node', () => getWithEditContext(client, input.id));
    const draft = current.status === 'draft' ? current : await editStep('create draft revision', () => client.createDraftRevision(input.id, 'Content editor'));
    const { updates, summary } = await editStep('llm turn', () =>
      proposeEdits(deps.llm(), {
        system: 'You edit one CMS-A node. Change fields only through the set_fields tool. Fields: title, body, summary.',
        document: `Node ${draft.nid} (${draft.type})\nTitle: ${draft.title}\nSummary: ${draft.fields.summary ?? ''}\nBody:\n${draft.fields.body ?? ''}`,
        task: input.task,
        current: fieldsOf(draft),
        fields: EDITABLE,
      }),
    );
    if (Object.keys(updates).length === 0) return { changes: [], nodeId: draft.nid, postId: draft.nid, noChanges: true, summary, state: stateOf(draft) };
    const { title, ...fields } = updates;
    await editStep('write draft', () => client.update(input.id, { ...(title !== undefined ? { title } : {}), ...fields }));
    const after = await editStep('read back', () => getWithEditContext(client, input.id));
    const changes = diffFields(fieldsOf(draft), fieldsOf(after), EDITABLE);
    return { changes, nodeId: draft.nid, postId: draft.nid, noChanges: changes.length === 0, summary, state: stateOf(after) };
  }

  return {
    edit,

    /** `idempotencyKey`: an agent's tool call's, keying the run's writes (its draft revision, its edit). */
    async run(_actor: AgentAccessActor, input: { instanceId: string; id: string; task: string }, idempotencyKey?: string): Promise<ContentEditorResult> {
      const { state: _state, ...result } = await edit(input, idempotencyKey);
      return result;
    },

    /**
     * The widget's Undo of one recorded edit: only while the node's latest revision is still the
     * draft the edit left (same revision, same published revision, each field as the edit left
     * it) are the recorded `before` values written to it; otherwise CONFLICT, nothing written.
     * The published revision is never touched, so an Undo never changes what visitors see.
     */
    async undo(_actor: AgentAccessActor, input: RecordedChange): Promise<ContentEditorResult> {
      const client = await editStep('connect', () => clientFor(deps, input.instanceId));
      const current = await editStep('read node', () => getWithEditContext(client, input.id));
      const now = fieldsOf(current);
      const changed = fieldsChangedSince(now, input.fields);
      if (current.status !== 'draft') changed.push('its draft was published');
      else if (current.revisionId !== input.state.revisionId) changed.push('a newer revision was saved');
      if (current.publishedRevisionId !== (input.state.publishedRevisionId ?? null)) changed.push('another revision was published');
      if (changed.length) throw changedSinceError('node', changed);
      await editStep('write draft', () => client.update(input.id, valuesToRestore(input.fields, EDITABLE)));
      const after = await editStep('read back', () => getWithEditContext(client, input.id));
      const changes = diffFields(now, fieldsOf(after), EDITABLE);
      return { changes, nodeId: current.nid, postId: current.nid, noChanges: changes.length === 0, summary: 'Undone.' };
    },
  };
}

/** Every primitive of the spec's CMS-A table. */
export function cmsAPrimitives(deps: { instances: ConnectorInstances; http: OutboundHttp; contentEditor: ReturnType<typeof createCmsAContentEditor> }): Primitive[] {
  const client = (id: string, context?: PrimitiveContext) => clientFor(deps, id, context?.idempotencyKey);
  return [
    statusPrimitive({
      connector: CMS_A,
      description: 'Connection status of a configured CMS-A (Drupal) instance through its tools module.',
      instances: deps.instances,
      async probe(instance) {
        const info = await createCmsAClient({ siteUrl: instance.siteUrl, mcpKey: instance.credential }, deps.http).siteInfo();
        return { site: info.name, version: info.version };
      },
    }),
    instancesListPrimitive(CMS_A, 'CMS-A', deps.instances),
    definePrimitive({
      name: 'cms_a_node_get',
      connector: CMS_A,
      description: 'A node with edit context: its latest revision, the draft when there is one. Media are inline in the fields.',
      input: z.object({ instanceId, id: nodeId }),
      output: nodeOutput,
      annotations: READ_ONLY,
      permission: 'read',
      handler: async (_c, input) => getWithEditContext(await client(input.instanceId), input.id),
    }),
    definePrimitive({
      name: 'cms_a_node_list',
      connector: CMS_A,
      description: 'Nodes matching a text, optionally by status.',
      input: z.object({ instanceId, query: z.string().max(200).optional(), status: z.enum(['published', 'draft', 'any']).default('any'), limit: z.number().int().min(1).max(100).default(10) }),
      output: z.array(nodeOutput),
      annotations: READ_ONLY,
      permission: 'read',
      // With edit context, as node_get reads: a pending draft is found by its own title and status.
      handler: async (_c, input) => (await client(input.instanceId)).search({ status: input.status, limit: input.limit, editContext: true, ...(input.query ? { text: input.query } : {}) }),
    }),
    definePrimitive({
      name: 'cms_a_node_create_draft_revision',
      connector: CMS_A,
      description: 'Creates a draft revision of a node from its latest revision; the published revision stays live.',
      input: z.object({ instanceId, id: nodeId, message: z.string().max(500).optional() }),
      output: nodeOutput,
      annotations: WRITE_ADDITIVE,
      permission: 'write',
      handler: async (context, input) => (await client(input.instanceId, context)).createDraftRevision(input.id, input.message),
    }),
    definePrimitive({
      name: 'cms_a_node_update',
      connector: CMS_A,
      description: 'Writes fields to the node\'s draft revision (create one first). At least one field.',
      input: z.object({
        instanceId,
        id: nodeId,
        fields: z
          .object({ title: z.string().max(1_000).optional(), body: z.string().max(500_000).optional(), summary: z.string().max(10_000).optional(), media: z.array(z.object({ url: z.string().url(), alt: z.string().max(500).optional() })).max(50).optional() })
          .strict()
          .refine((f) => Object.values(f).some((v) => v !== undefined), 'name at least one field to change (title, body, summary or media)'),
      }),
      output: nodeOutput,
      annotations: WRITE_IDEMPOTENT,
      permission: 'write',
      handler: async (context, input) => (await client(input.instanceId, context)).update(input.id, input.fields),
      /** What the write would change in the draft, read with edit context (an approval shows it). */
      async preview(_c, input) {
        const before = await getWithEditContext(await client(input.instanceId), input.id);
        const was: Record<string, unknown> = { ...fieldsOf(before), media: before.fields.media ?? [] };
        return Object.entries(input.fields).flatMap(([field, after]) => (after === undefined || JSON.stringify(after) === JSON.stringify(was[field]) ? [] : [{ field, before: was[field] ?? null, after }]));
      },
    }),
    definePrimitive({
      name: 'cms_a_node_publish',
      connector: CMS_A,
      description: 'Publishes the node\'s draft revision.',
      input: z.object({ instanceId, id: nodeId }),
      output: nodeOutput,
      annotations: WRITE_IDEMPOTENT,
      permission: 'write',
      handler: async (context, input) => (await client(input.instanceId, context)).publish(input.id),
    }),
    definePrimitive({
      name: 'cms_a_content_editor_run',
      connector: CMS_A,
      description: 'Hands an edit task for one node to the content-editor agent; answers the field diff it wrote to a draft revision.',
      input: z.object({ instanceId, id: nodeId, task: z.string().min(1).max(20_000) }),
      output: contentEditorResultOutput,
      annotations: WRITE_ADDITIVE,
      permission: 'write',
      handler: (context, input) => deps.contentEditor.run(context.actor, input, context.idempotencyKey),
    }),
  ];
}
