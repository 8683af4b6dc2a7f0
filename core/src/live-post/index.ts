/**
 * The live-post rule, one predicate for every caller that edits a CMS-B (WordPress) post: a post
 * is live while its status is `publish` (visitors see it). The widget asks before it edits a live
 * post; `cms_b_post_update` and `cms_b_post_update_meta` refuse a change that leaves one live unless the caller passes
 * `allowLive: true`. Taking it out of view (a status other than `publish`) needs no flag: that is
 * the contract's demote-then-edit.
 * No imports: the widget's browser bundle includes this file (`@service/core/live-post`).
 */
export function isLivePost(status: string | undefined): boolean {
  return status === 'publish';
}

/** What a tool (`cms_b_post_update`, `cms_b_post_update_meta`) answers when a caller changes a live post, leaving it live, without `allowLive: true`. */
export function livePostRefusal(tool: string): string {
  return (
    `The post is live (published): ${tool} changes a live post that stays live only with allowLive: true, the rule the widget asks about before editing one. ` +
    'To edit it without visitors seeing the changes, demote it first with cms_b_post_update and status "draft" (no flag needed), then edit the draft.'
  );
}

/** Whether an update with `status` (absent: unchanged) of a post now `current` changes what visitors see without taking it out of view. */
export function changesLivePost(current: string | undefined, status: string | undefined): boolean {
  return isLivePost(current) && (status === undefined || isLivePost(status));
}
