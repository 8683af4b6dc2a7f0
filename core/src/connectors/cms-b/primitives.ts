import { z } from 'zod';
import { DomainError } from '../../errors/index.ts';
import { definePrimitive, type Primitive, type PrimitiveContext } from '../primitive.ts';
import { instancesListPrimitive, READ_ONLY, statusPrimitive, WRITE_ADDITIVE, WRITE_IDEMPOTENT } from '../standard-primitives.ts';
import type { ContentEditor } from './content-editor.ts';
import { instanceId, postFields, postId, postOutput, postStatus } from './schemas.ts';
import { CMS_B, cmsBClientFor, cmsBClientOf, type SiteAccess, type SiteEvents } from './site.ts';
import { contentEditorResultOutput } from '../content-edit.ts';
import { changesLivePost, isLivePost, livePostRefusal } from '../../live-post/index.ts';

/** Every primitive of the spec's CMS-B table. */
export function cmsBPrimitives(deps: SiteAccess & { contentEditor: ContentEditor; events?: SiteEvents }): Primitive[] {
  /** The site's client for one call; a caller's key (an agent's tool call) keys its writes. */
  const client = (id: string, context?: PrimitiveContext) => cmsBClientFor(deps, id, context?.idempotencyKey);
  return [
    statusPrimitive({
      connector: CMS_B,
      description: 'Connection status of a configured CMS-B (WordPress) instance: reachable, and who the credential acts as.',
      instances: deps.instances,
      probe: async (instance) => ({ user: (await cmsBClientOf(instance, deps.http).me()).slug }),
    }),
    instancesListPrimitive(CMS_B, 'CMS-B', deps.instances),
    definePrimitive({
      name: 'cms_b_post_get',
      connector: CMS_B,
      description: 'A post with its raw (edit context) title, content and excerpt.',
      input: z.object({ instanceId, id: postId }),
      output: postOutput,
      annotations: READ_ONLY,
      permission: 'read',
      handler: async (_c, input) => (await client(input.instanceId)).getPost(input.id),
    }),
    definePrimitive({
      name: 'cms_b_posts_list',
      connector: CMS_B,
      description: 'Posts, newest first, optionally filtered by status or a search text.',
      input: z.object({ instanceId, status: z.enum(['any', 'publish', 'draft', 'pending', 'private', 'future']).default('any'), search: z.string().max(200).optional(), limit: z.number().int().min(1).max(100).default(10) }),
      output: z.array(postOutput),
      annotations: READ_ONLY,
      permission: 'read',
      handler: async (_c, input) => (await client(input.instanceId)).listPosts({ status: input.status, perPage: input.limit, ...(input.search ? { search: input.search } : {}) }),
    }),
    definePrimitive({
      name: 'cms_b_post_get_latest',
      connector: CMS_B,
      description: 'The most recently modified post, whatever its status.',
      input: z.object({ instanceId }),
      output: postOutput,
      annotations: READ_ONLY,
      permission: 'read',
      async handler(_c, input) {
        const [latest] = await (await client(input.instanceId)).listPosts({ perPage: 1, orderby: 'modified' });
        if (!latest) throw new DomainError('NOT_FOUND', 'The instance has no posts');
        return latest;
      },
    }),
    definePrimitive({
      name: 'cms_b_post_status',
      connector: CMS_B,
      description: 'The publication status of a post.',
      input: z.object({ instanceId, id: postId }),
      output: z.object({ id: z.number().int(), status: z.string(), link: z.string(), modified: z.string() }),
      annotations: READ_ONLY,
      permission: 'read',
      async handler(_c, input) {
        const post = await (await client(input.instanceId)).getPost(input.id);
        return { id: post.id, status: post.status, link: post.link, modified: post.modified };
      },
    }),
    definePrimitive({
      name: 'cms_b_post_create_draft',
      connector: CMS_B,
      description: 'Creates a new draft post.',
      input: z.object({ instanceId, title: z.string().min(1).max(1_000), content: z.string().max(500_000).default(''), excerpt: z.string().max(10_000).optional() }),
      output: postOutput,
      annotations: WRITE_ADDITIVE,
      permission: 'write',
      handler: async (context, { instanceId: id, ...fields }) => (await client(id, context)).createPost({ ...fields, status: 'draft' }),
    }),
    definePrimitive({
      name: 'cms_b_post_update',
      connector: CMS_B,
      description:
        'Updates fields of a post; at least one field is required. A change that leaves a live (published) post live needs allowLive: true, or is refused; to edit one without visitors seeing the changes, demote it with status "draft" first (no flag needed), then edit the draft.',
      input: z
        .object({ instanceId, id: postId, ...postFields, allowLive: z.boolean().default(false).describe('Set true to change a live (published) post and keep it live; without it such an update is refused. Demoting (a status other than publish) needs no flag.') })
        .refine((value) => ['title', 'content', 'excerpt', 'status', 'slug'].some((field) => value[field as keyof typeof value] !== undefined), {
          message: 'name at least one field to change (title, content, excerpt, status or slug)',
          path: ['fields'],
        }),
      output: postOutput,
      annotations: WRITE_IDEMPOTENT,
      permission: 'write',
      async handler(context, { instanceId: id, id: post, allowLive, ...fields }) {
        const site = await client(id, context);
        const current = (await site.getPost(post)).status;
        const wasLive = isLivePost(current);
        if (changesLivePost(current, fields.status) && !allowLive) throw new DomainError('CONFLICT', livePostRefusal('cms_b_post_update'));
        const updated = await site.updatePost(post, fields);
        // A completed publish is what a site most often wants to hear about; not a re-save of a published post.
        if (!wasLive && isLivePost(updated.status)) deps.events?.(id, 'content.published', { postId: updated.id, link: updated.link });
        return updated;
      },
      /** What the update would change, read from the post as it is (an approval shows it). */
      async preview(context, { instanceId: id, id: post, allowLive: _allowLive, ...fields }) {
        const before = await (await client(id, context)).getPost(post);
        return Object.entries(fields).flatMap(([field, after]) => {
          const was = (before as unknown as Record<string, unknown>)[field] ?? null;
          return after === undefined || after === was ? [] : [{ field, before: was, after }];
        });
      },
    }),
    definePrimitive({
      name: 'cms_b_post_update_meta',
      connector: CMS_B,
      description: 'Updates registered meta fields of a post. On a live (published) post this needs allowLive: true, or is refused (the same rule as cms_b_post_update).',
      input: z.object({
        instanceId,
        id: postId,
        meta: z.record(z.string().min(1).max(200), z.union([z.string(), z.number(), z.boolean(), z.null().describe('deletes the meta field')])).refine((m) => Object.keys(m).length > 0, 'name at least one meta field'),
        allowLive: z.boolean().default(false).describe('Set true to change the meta of a live (published) post; without it such an update is refused.'),
      }),
      output: postOutput,
      annotations: WRITE_IDEMPOTENT,
      permission: 'write',
      async handler(context, input) {
        const site = await client(input.instanceId, context);
        if (!input.allowLive && changesLivePost((await site.getPost(input.id)).status, undefined)) throw new DomainError('CONFLICT', livePostRefusal('cms_b_post_update_meta'));
        return site.updatePost(input.id, { meta: input.meta });
      },
    }),
    definePrimitive({
      name: 'cms_b_post_delete',
      connector: CMS_B,
      description: 'Moves a post to the trash, or deletes it for good with force: true.',
      input: z.object({ instanceId, id: postId, force: z.boolean().default(false) }),
      output: z.object({ id: z.number().int(), deleted: z.boolean(), trashed: z.boolean() }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      permission: 'write',
      async handler(context, input) {
        const result = await (await client(input.instanceId, context)).deletePost(input.id, input.force);
        return { id: input.id, deleted: input.force ? result.deleted === true : false, trashed: !input.force };
      },
    }),
    definePrimitive({
      name: 'cms_b_media_upload',
      connector: CMS_B,
      description: 'Uploads a file (base64) to the media library.',
      input: z.object({
        instanceId,
        filename: z.string().regex(/^[\w.-]{1,200}$/, 'a plain file name'),
        mimeType: z.string().regex(/^(image|audio|video|application)\/[\w.+-]+$/, 'a media MIME type'),
        dataBase64: z.string().min(1).max(14_000_000),
      }),
      output: z.object({ id: z.number().int(), url: z.string(), mimeType: z.string() }),
      annotations: WRITE_ADDITIVE,
      permission: 'write',
      async handler(context, input) {
        const media = await (await client(input.instanceId, context)).uploadMedia(input.filename, input.mimeType, Buffer.from(input.dataBase64, 'base64'));
        return { id: media.id, url: media.source_url, mimeType: media.mime_type };
      },
    }),
    definePrimitive({
      name: 'cms_b_content_editor_run',
      connector: CMS_B,
      description: 'Hands an edit task for one post to the content-editor agent; answers the field diff it wrote to the draft.',
      input: z.object({ instanceId, id: postId, task: z.string().min(1).max(20_000) }),
      output: contentEditorResultOutput,
      annotations: WRITE_ADDITIVE,
      permission: 'write',
      handler: (context, input) => deps.contentEditor.run(context.actor, input, context.idempotencyKey),
    }),
  ];
}

export { postStatus };
