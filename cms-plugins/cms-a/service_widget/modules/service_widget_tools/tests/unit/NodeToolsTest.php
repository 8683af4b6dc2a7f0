<?php

namespace ServiceWidgetTools\Tests;

use ServiceWidgetTools\StandIn\InMemorySite;

/**
 * The five tools on revisions, access and validation, as Drupal keeps them.
 */
class NodeToolsTest extends ToolsTestCase {

  public function testAnUpdateWithoutFieldsIsAToolErrorNamingThem(): void {
    $this->ok('node_create_draft_revision', ['nid' => '42']);
    $saves = $this->site->nodes->saves;
    $this->assertStringContainsString('fields is required', $this->refused('node_update', ['nid' => '42']));
    $this->assertStringContainsString('fields must be an object', $this->refused('node_update', ['nid' => '42', 'fields' => []]));
    $this->assertStringContainsString('fields.title must be a string', $this->refused('node_update', ['nid' => '42', 'fields' => ['title' => 3]]));
    $this->assertStringContainsString('nid is required', $this->refused('node_update', ['fields' => ['title' => 'x']]));
    $this->assertSame($saves, $this->site->nodes->saves);
  }

  public function testAnUpdateOnAPublishedNodeWithoutADraftIsRefused(): void {
    $text = $this->refused('node_update', ['nid' => '42', 'fields' => ['title' => 'Too early']]);
    $this->assertStringContainsString('no draft revision', $text);
    $this->assertStringContainsString('node_create_draft_revision', $text, 'says what to do instead');
    $this->assertSame([], $this->site->nodes->saves);
    $this->assertSame('Published title', $this->site->nodes->load('42')->getTitle());
  }

  public function testDraftUpdatePublishLeavesExactlyOneNewDefaultRevision(): void {
    $nodes = $this->site->nodes;
    [[$live]] = $nodes->revisions('42');

    $draft = $this->ok('node_create_draft_revision', ['nid' => '42', 'message' => 'Content editor']);
    $this->assertSame(['draft', $live], [$draft['status'], $draft['publishedRevisionId']]);
    $this->assertNotSame($live, $draft['revisionId']);
    $this->assertSame([[$live, 'published', 'Published title', TRUE], [$draft['revisionId'], 'draft', 'Published title', FALSE]], $nodes->revisions('42'));
    $stored = $nodes->loadRevision($draft['revisionId']);
    $this->assertSame(['Content editor', 2, 1700000000], [$stored->values['revision_log'], $stored->values['revision_uid'], $stored->values['revision_timestamp']]);

    $updated = $this->ok('node_update', ['nid' => '42', 'fields' => ['title' => 'Edited title', 'body' => 'The body.', 'summary' => 'Short.']]);
    $this->assertSame([$draft['revisionId'], 'Edited title', 'The body.', 'Short.'], [$updated['revisionId'], $updated['title'], $updated['fields']['body'], $updated['fields']['summary']]);
    $this->assertSame('Published title', $nodes->load('42')->getTitle(), 'visitors still see the published revision');
    $this->assertSame('Published title', $this->ok('node_search', ['nid' => '42'])['nodes'][0]['title']);

    $before = count($nodes->saves);
    $published = $this->ok('node_publish', ['nid' => '42']);
    $publishSaves = array_slice($nodes->saves, $before);
    $this->assertCount(1, $publishSaves);
    [[, $vid, $isNew, $isDefault]] = $publishSaves;
    $this->assertSame([TRUE, TRUE], [$isNew, $isDefault], 'one save: a new revision, made the default');
    $this->assertSame([$vid, $vid, 'published', 'Edited title'], [$published['revisionId'], $published['publishedRevisionId'], $published['status'], $published['title']]);
    $this->assertSame([
      [$live, 'published', 'Published title', FALSE],
      [$draft['revisionId'], 'draft', 'Edited title', FALSE],
      [$vid, 'published', 'Edited title', TRUE],
    ], $nodes->revisions('42'));
    $this->assertSame('The body.', $nodes->load('42')->get('body')->value);

    $this->assertStringContainsString('no draft revision to publish', $this->refused('node_publish', ['nid' => '42']));
    $this->assertCount($before + 1, $nodes->saves);
  }

  public function testWithContentModerationTheStatesDecideTheRevisions(): void {
    $this->site = InMemorySite::fromFixture(service_widget_tools_contract_fixture(), TRUE);
    $this->site->setKey(self::KEY);
    $nodes = $this->site->nodes;
    [[$live]] = $nodes->revisions('42');

    $draft = $this->ok('node_create_draft_revision', ['nid' => '42']);
    $this->assertSame('draft', $nodes->loadRevision($draft['revisionId'])->values['moderation_state']);
    $updated = $this->ok('node_update', ['nid' => '42', 'fields' => ['title' => 'Edited title']]);
    $this->assertNotSame($draft['revisionId'], $updated['revisionId'], 'Content Moderation saves every change as a new revision');
    $this->assertSame(['draft', $live], [$updated['status'], $updated['publishedRevisionId']]);
    $this->assertSame('Published title', $nodes->load('42')->getTitle());

    $published = $this->ok('node_publish', ['nid' => '42']);
    $this->assertSame('published', $nodes->load('42')->values['moderation_state']);
    $this->assertSame(['Edited title', $published['revisionId']], [$nodes->load('42')->getTitle(), $published['publishedRevisionId']]);
    $defaults = array_filter($nodes->saves, fn($save) => $save[3]);
    $this->assertCount(1, $defaults, 'exactly one new default revision');
  }

  public function testFieldsTheToolsDoNotWriteAreRefusedByName(): void {
    $this->ok('node_create_draft_revision', ['nid' => '42']);
    $saves = $this->site->nodes->saves;
    $this->assertStringContainsString('colour', $this->refused('node_update', ['nid' => '42', 'fields' => ['title' => 'x', 'colour' => 'red']]));
    $this->assertStringContainsString('media', $this->refused('node_update', ['nid' => '42', 'fields' => ['media' => [['url' => 'https://x.test/a.png']]]]));
    $this->assertSame($saves, $this->site->nodes->saves);
  }

  public function testFieldAccessIsDrupals(): void {
    $draft = $this->ok('node_create_draft_revision', ['nid' => 'locked']);
    $saves = $this->site->nodes->saves;
    $this->assertMatchesRegularExpression('/^Access denied: .*title field of node locked/', $this->refused('node_update', ['nid' => 'locked', 'fields' => ['title' => 'Changed']]));
    $this->assertMatchesRegularExpression('/^Access denied: .*body field/', $this->refused('node_update', ['nid' => 'locked', 'fields' => ['summary' => 'Changed']]));
    $this->assertSame($saves, $this->site->nodes->saves);
    $this->assertSame('Locked node', $this->site->nodes->loadRevision($draft['revisionId'])->getTitle());
  }

  public function testNodeAccessIsDrupals(): void {
    $this->site->nodes->nodes['abc123']['policy']['update'] = FALSE;
    $this->assertStringContainsString('Access denied: the tools user may not update node abc123', $this->refused('node_create_draft_revision', ['nid' => 'abc123']));
    $this->assertSame([], $this->ok('node_search', ['nid' => 'abc123', 'editContext' => TRUE])['nodes'], 'no edit context for a node the user may not update');
    $this->assertCount(1, $this->ok('node_search', ['nid' => 'abc123'])['nodes']);

    $this->site->nodes->nodes['abc123']['policy']['view'] = FALSE;
    $this->assertSame([], $this->ok('node_search', ['nid' => 'abc123'])['nodes']);
    $this->assertSame([], $this->ok('node_search', ['text' => 'alphanumeric'])['nodes']);
    $this->assertSame([], $this->site->nodes->saves);
  }

  public function testDrupalsValidationIsAppliedToTheWrittenFields(): void {
    $this->ok('node_create_draft_revision', ['nid' => '42']);
    $saves = $this->site->nodes->saves;
    $this->assertSame('Drupal refused the change: title: This value is too long. It should have 255 characters or less.', $this->refused('node_update', ['nid' => '42', 'fields' => ['title' => str_repeat('t', 256)]]));
    $this->assertStringContainsString('title: This value should not be null.', $this->refused('node_update', ['nid' => '42', 'fields' => ['title' => ' ']]));
    $this->assertSame($saves, $this->site->nodes->saves);
  }

  public function testSearchFindsByTextStatusAndLimit(): void {
    $this->assertSame(['abc123'], array_column($this->ok('node_search', ['text' => 'ALPHANUMERIC'])['nodes'], 'nid'));
    $this->assertSame(['42'], array_column($this->ok('node_search', ['text' => 'teh body'])['nodes'], 'nid'), 'the body is searched too');
    $this->assertCount(2, $this->ok('node_search', ['limit' => 2])['nodes']);
    $this->assertSame([], $this->ok('node_search', ['status' => 'draft'])['nodes']);

    $this->ok('node_create_draft_revision', ['nid' => '42']);
    $this->ok('node_update', ['nid' => '42', 'fields' => ['title' => 'Renamed']]);
    $this->assertSame([['42', 'Renamed']], array_map(fn($n) => [$n['nid'], $n['title']], $this->ok('node_search', ['status' => 'draft', 'editContext' => TRUE])['nodes']));
    $this->assertSame(['42'], array_column($this->ok('node_search', ['text' => 'renamed', 'editContext' => TRUE])['nodes'], 'nid'));
    $this->assertSame([], $this->ok('node_search', ['text' => 'renamed'])['nodes'], 'visitors\' revision keeps the old title');

    $this->assertStringContainsString('limit must be an integer from 1 to 50', $this->refused('node_search', ['limit' => 0]));
    $this->assertStringContainsString('status must be one of', $this->refused('node_search', ['status' => 'archived']));
    $this->assertStringContainsString('nid must be a string', $this->refused('node_search', ['nid' => ['42']]));
  }

  public function testMissingAndImpossibleNodesAreNotFound(): void {
    foreach (['missing', '../etc/passwd', str_repeat('9', 65)] as $nid) {
      $this->assertStringContainsString('not found', $this->refused('node_create_draft_revision', ['nid' => $nid]));
      $this->assertSame([], $this->ok('node_search', ['nid' => $nid])['nodes']);
    }
    $this->assertSame('42', $this->ok('node_search', ['nid' => 42])['nodes'][0]['nid'], 'a numeric id is taken as its string');
  }

  public function testImagesAreInlineWithAbsoluteUrls(): void {
    $this->site->nodes->seed('7', 'article', 'With image', ['body' => 'b', 'media' => [['url' => 'public://2026-11/cover.png', 'alt' => 'Cover']]]);
    $this->assertSame([['url' => 'https://cms-a.example.test/sites/default/files/2026-11/cover.png', 'alt' => 'Cover']], $this->ok('node_search', ['nid' => '7'])['nodes'][0]['fields']['media']);
    $this->assertArrayNotHasKey('media', $this->ok('node_search', ['nid' => 'abc123'])['nodes'][0]['fields'], 'no images, no media key');
  }

  public function testPublishingIsRefusedToAUserWhoMayNotChangeTheStatus(): void {
    $this->site->users->data[2]['permissions'] = array_values(array_diff($this->site->users->data[2]['permissions'], ['administer nodes']));
    $this->ok('node_create_draft_revision', ['nid' => '42']);
    $saves = $this->site->nodes->saves;
    $this->assertStringContainsString('Access denied: the tools user may not publish node 42', $this->refused('node_publish', ['nid' => '42']));
    $this->assertSame($saves, $this->site->nodes->saves);
  }

  public function testWithContentModerationTheTransitionsAreTheToolsUsers(): void {
    $this->site = InMemorySite::fromFixture(service_widget_tools_contract_fixture(), TRUE);
    $this->site->setKey(self::KEY);
    $this->site->users->data[2]['permissions'] = array_values(array_diff($this->site->users->data[2]['permissions'], ['use editorial transition publish']));
    $this->ok('node_create_draft_revision', ['nid' => '42']);
    $saves = $this->site->nodes->saves;
    $this->assertStringContainsString('Drupal refused the change: moderation_state: You do not have access to transition from draft to published.', $this->refused('node_publish', ['nid' => '42']));
    $this->assertSame($saves, $this->site->nodes->saves);
  }

  public function testWithContentModerationAnArchivedNodeIsNoDraft(): void {
    $this->site = InMemorySite::fromFixture(service_widget_tools_contract_fixture(), TRUE);
    $this->site->setKey(self::KEY);
    $node = &$this->site->nodes->nodes['abc123'];
    $node['revisions'][$node['default']]['moderation_state'] = 'archived';
    $node['revisions'][$node['default']]['status'] = FALSE;
    unset($node);
    $this->assertStringContainsString('no draft revision', $this->refused('node_update', ['nid' => 'abc123', 'fields' => ['title' => 'x']]));
    $this->assertStringContainsString('no draft revision to publish', $this->refused('node_publish', ['nid' => 'abc123']));
    $this->assertSame([], $this->site->nodes->saves);
  }

  public function testABodyInAFormatTheToolsUserMayNotUseIsNotWritten(): void {
    $this->site->nodes->seed('8', 'article', 'Full HTML page', ['body' => '<script>x</script>', 'format' => 'full_html']);
    $this->ok('node_create_draft_revision', ['nid' => '8']);
    $saves = $this->site->nodes->saves;
    $this->assertStringContainsString('body.0.format: The value you selected is not a valid choice.', $this->refused('node_update', ['nid' => '8', 'fields' => ['body' => 'Plain now']]));
    $this->assertSame($saves, $this->site->nodes->saves);
    $this->assertSame('Retitled', $this->ok('node_update', ['nid' => '8', 'fields' => ['title' => 'Retitled']])['title'], 'the title is another field');
  }

  public function testSearchReadsFurtherPagesWhenAccessDropsNodes(): void {
    $this->site->nodes->nodes['locked']['policy']['view'] = FALSE;
    $this->assertSame(['abc123'], array_column($this->ok('node_search', ['text' => 'body', 'limit' => 1])['nodes'], 'nid'));
    $this->assertSame(['abc123', '42'], array_column($this->ok('node_search', ['text' => 'body', 'limit' => 2])['nodes'], 'nid'));
    $this->assertSame(['abc123', '42'], array_column($this->ok('node_search', ['text' => 'body', 'limit' => 5])['nodes'], 'nid'));
  }

  public function testSiteInfo(): void {
    $this->assertSame(['name' => 'CMS-A stand-in', 'version' => \Drupal::VERSION], $this->ok('site_info'));
  }

}
