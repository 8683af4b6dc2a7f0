/**
 * The live-post rule, one predicate for every caller that edits a CMS-B (WordPress) post: a post
 * is live while its status is `publish` (visitors see it). The widget asks before it edits a live
 * post; `cms_b_post_update` refuses to change one unless the caller passes `allowLive: true`.
 * No imports: the widget's browser bundle includes this file (`@service/core/live-post`).
 */
export function isLivePost(status: string | undefined): boolean {
  return status === 'publish';
}

/** What `cms_b_post_update` answers when a caller changes a live post without `allowLive: true`. */
export const LIVE_POST_REFUSAL =
  'The post is live (published): cms_b_post_update changes a live post only with allowLive: true, the rule the widget asks about before editing one. ' +
  'To edit it without visitors seeing the changes, demote it first with status "draft" and allowLive: true.';
