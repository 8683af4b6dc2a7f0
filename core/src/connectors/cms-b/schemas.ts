import { z } from 'zod';
import { openRecord } from '../portable-schemas.ts';

/**
 * CMS-B ids are positive integers. A numeric string is accepted ("12" → 12); anything else,
 * `true`, 0, -1 and 1.5 included, is refused (z.coerce would turn `true` into 1).
 */
export const postId = z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value), z.number().int().positive());

export { instanceId } from '../instances.ts';

export const postStatus = z.enum(['publish', 'draft', 'pending', 'private', 'future']);

/** The fields `cms_b_post_update` can change; at least one is required. */
export const postFields = {
  title: z.string().max(1_000).optional(),
  content: z.string().max(500_000).optional(),
  excerpt: z.string().max(10_000).optional(),
  status: postStatus.optional(),
  slug: z.string().regex(/^[a-z0-9-]{1,200}$/).optional(),
};
export const EDITABLE_FIELDS = ['title', 'content', 'excerpt'] as const;

/** A post as the primitives answer it (raw, edit-context values). */
export const postOutput = z.object({
  id: z.number().int(),
  status: z.string(),
  title: z.string(),
  content: z.string(),
  excerpt: z.string(),
  slug: z.string(),
  link: z.string(),
  modified: z.string(),
  meta: openRecord(),
});
