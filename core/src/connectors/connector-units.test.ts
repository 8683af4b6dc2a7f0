import { describe, expect, it } from 'vitest';
import { testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();

const SPEC = {
  cms_a: ['cms_a_status', 'cms_a_instances_list', 'cms_a_node_get', 'cms_a_node_list', 'cms_a_node_create_draft_revision', 'cms_a_node_update', 'cms_a_node_publish', 'cms_a_content_editor_run'],
  cms_b: ['cms_b_status', 'cms_b_instances_list', 'cms_b_post_get', 'cms_b_posts_list', 'cms_b_post_get_latest', 'cms_b_post_status', 'cms_b_post_create_draft', 'cms_b_post_update', 'cms_b_post_update_meta', 'cms_b_post_delete', 'cms_b_media_upload', 'cms_b_content_editor_run'],
};

describe('connector units', () => {
  it('register exactly the spec\'s primitives, a widget tool bound to the content editor, and a stream slug', () => {
    const services = testServices(t.db);
    for (const [connector, names] of Object.entries(SPEC)) {
      const registered = services.primitives.list().filter((p) => p.connector === connector).map((p) => p.name);
      expect(registered.sort(), connector).toEqual([...names].sort());
      const unit = services.streams.get(`${connector.replace('_', '-')}-content-editor`);
      expect(unit).toMatchObject({ kind: 'connector', name: connector, stream: { widgetAuthKey: `${connector}_widget_auth` } });
      expect(unit!.widgetChatTool.primitive).toBe(`${connector}_content_editor_run`);
      expect(services.primitives.get(unit!.widgetChatTool.primitive)).toBeDefined();
    }
    expect(services.streams.get('unknown-content-editor')).toBeNull();
    expect(services.streams.slugs().sort()).toEqual(['cms-a-content-editor', 'cms-b-content-editor']);
  });

  it('annotate reads as read-only and deletes as destructive', () => {
    const services = testServices(t.db);
    for (const primitive of services.primitives.list()) {
      expect(primitive.annotations.readOnlyHint, primitive.name).toBe(primitive.permission === 'read');
    }
    expect(services.primitives.get('cms_b_post_delete')!.annotations.destructiveHint).toBe(true);
  });
});
