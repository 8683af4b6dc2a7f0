<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

use Drupal\user\Entity\Role;

/**
 * The five tools on real nodes, revisions, access and validation.
 *
 * @group service_widget_tools
 */
class NodeToolsTest extends ToolsKernelTestBase {

  /**
   * The nodes' storage.
   */
  protected function nodes() {
    $storage = $this->container->get('entity_type.manager')->getStorage('node');
    $storage->resetCache();
    return $storage;
  }

  public function testDraftUpdatePublishLeavesExactlyOneNewDefaultRevision(): void {
    $nid = (string) $this->article('Published title', '<p>Teh body.</p>')->id();
    [[$live]] = $this->revisions($nid);

    $this->assertStringContainsString('no draft revision', $this->refused('node_update', ['nid' => $nid, 'fields' => ['title' => 'Too early']]));
    $this->assertStringContainsString('fields is required', $this->refused('node_update', ['nid' => $nid]));
    $draft = $this->ok('node_create_draft_revision', ['nid' => $nid, 'message' => 'Content editor']);
    $this->assertSame(['draft', $live], [$draft['status'], $draft['publishedRevisionId']]);
    $this->assertSame([[$live, 'published', 'Published title', TRUE], [$draft['revisionId'], 'draft', 'Published title', FALSE]], $this->revisions($nid));
    $this->assertSame('Content editor', $this->nodes()->loadRevision($draft['revisionId'])->getRevisionLogMessage());

    $updated = $this->ok('node_update', ['nid' => $nid, 'fields' => ['title' => 'Edited title', 'body' => '<p>The body.</p>', 'summary' => 'Short.']]);
    $this->assertSame([$draft['revisionId'], 'Edited title', '<p>The body.</p>', 'Short.'], [$updated['revisionId'], $updated['title'], $updated['fields']['body'], $updated['fields']['summary']]);
    $this->assertSame('Published title', $this->nodes()->load($nid)->getTitle(), 'visitors still see the published revision');
    $this->assertSame('Published title', $this->ok('node_search', ['nid' => $nid])['nodes'][0]['title']);
    $this->assertSame('Edited title', $this->ok('node_search', ['nid' => $nid, 'editContext' => TRUE])['nodes'][0]['title']);

    $published = $this->ok('node_publish', ['nid' => $nid]);
    $vid = $published['revisionId'];
    $this->assertSame([$vid, 'published', 'Edited title'], [$published['publishedRevisionId'], $published['status'], $published['title']]);
    $this->assertSame([
      [$live, 'published', 'Published title', FALSE],
      [$draft['revisionId'], 'draft', 'Edited title', FALSE],
      [$vid, 'published', 'Edited title', TRUE],
    ], $this->revisions($nid));
    $this->assertSame(['<p>The body.</p>', 'basic_html'], [$this->nodes()->load($nid)->get('body')->value, $this->nodes()->load($nid)->get('body')->format]);
    $this->assertStringContainsString('no draft revision to publish', $this->refused('node_publish', ['nid' => $nid]));
    $this->assertCount(3, $this->revisions($nid));
  }

  public function testABodyWrittenIntoAnEmptyBodyGetsAFormatTheToolsUserMayUse(): void {
    $nid = (string) $this->article('Empty body', '')->id();
    $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->ok('node_update', ['nid' => $nid, 'fields' => ['body' => '<p>Hello <strong>world</strong></p>']]);
    $this->ok('node_publish', ['nid' => $nid]);
    $body = $this->nodes()->load($nid)->get('body');
    $this->assertSame(['<p>Hello <strong>world</strong></p>', 'basic_html'], [$body->value, $body->format]);
    // What visitors get: the markup rendered, not escaped.
    $this->assertStringContainsString('<strong>world</strong>', (string) check_markup($body->value, $body->format));

    // A summary written alone into an empty body gets one too.
    $other = (string) $this->article('Summary only', '')->id();
    $this->ok('node_create_draft_revision', ['nid' => $other]);
    $this->ok('node_update', ['nid' => $other, 'fields' => ['summary' => 'Short.']]);
    $this->assertSame('basic_html', $this->nodes()->loadRevision($this->nodes()->getLatestRevisionId($other))->get('body')->format);
  }

  public function testWithoutAFormatBeyondPlainTextTheBodyIsRefusedClearly(): void {
    Role::load($this->toolsUser->getRoles(TRUE)[0])->revokePermission('use text format basic_html')->save();
    $nid = (string) $this->article('Empty body', '')->id();
    $draft = $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $text = $this->refused('node_update', ['nid' => $nid, 'fields' => ['body' => '<p>Hello</p>']]);
    $this->assertStringContainsString('no text format', $text);
    $this->assertStringContainsString('Use the Basic HTML text format', $text);
    $this->assertSame('', (string) $this->nodes()->loadRevision($draft['revisionId'])->get('body')->value, 'nothing written');
  }

  public function testABodyInAFormatTheToolsUserMayNotUseIsNotWritten(): void {
    $nid = (string) $this->article('Full HTML page', '<script>x</script>', ['body' => ['value' => '<script>x</script>', 'format' => 'full_html']])->id();
    $draft = $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->assertStringContainsString('body.0.format: The value you selected is not a valid choice.', $this->refused('node_update', ['nid' => $nid, 'fields' => ['body' => 'Plain now']]));
    $this->assertSame('<script>x</script>', $this->nodes()->loadRevision($draft['revisionId'])->get('body')->value);
    $this->assertSame('Retitled', $this->ok('node_update', ['nid' => $nid, 'fields' => ['title' => 'Retitled']])['title'], 'the title is another field');
  }

  public function testFieldsTheToolsDoNotWriteAreRefusedByName(): void {
    $nid = (string) $this->article('Published title')->id();
    $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->assertStringContainsString('colour', $this->refused('node_update', ['nid' => $nid, 'fields' => ['title' => 'x', 'colour' => 'red']]));
    $this->assertStringContainsString('media', $this->refused('node_update', ['nid' => $nid, 'fields' => ['media' => [['url' => 'https://x.test/a.png']]]]));
    $this->assertStringContainsString('fields.title must be a string', $this->refused('node_update', ['nid' => $nid, 'fields' => ['title' => 3]]));
    $this->assertSame('Published title', $this->ok('node_search', ['nid' => $nid, 'editContext' => TRUE])['nodes'][0]['title']);
  }

  public function testFieldAccessIsDrupals(): void {
    $nid = (string) $this->article('Locked node')->id();
    $this->container->get('state')->set('service_widget_tools_test.locked', [(int) $nid]);
    $draft = $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->assertMatchesRegularExpression("/^Access denied: .*title field of node $nid/", $this->refused('node_update', ['nid' => $nid, 'fields' => ['title' => 'Changed']]));
    $this->assertMatchesRegularExpression('/^Access denied: .*body field/', $this->refused('node_update', ['nid' => $nid, 'fields' => ['summary' => 'Changed']]));
    $this->assertSame('Locked node', $this->nodes()->loadRevision($draft['revisionId'])->getTitle());
  }

  public function testNodeAccessIsDrupals(): void {
    $nid = (string) $this->article('Alphanumeric node')->id();
    Role::load($this->toolsUser->getRoles(TRUE)[0])->revokePermission('edit any article content')->save();
    $this->assertStringContainsString("Access denied: the tools user may not update node $nid", $this->refused('node_create_draft_revision', ['nid' => $nid]));
    $this->assertSame([], $this->ok('node_search', ['nid' => $nid, 'editContext' => TRUE])['nodes'], 'no edit context for a node the user may not update');
    $this->assertCount(1, $this->ok('node_search', ['nid' => $nid])['nodes']);
    $this->assertCount(1, $this->revisions($nid));
  }

  public function testDrupalsValidationIsAppliedToTheWrittenFields(): void {
    $nid = (string) $this->article('Published title')->id();
    $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->assertSame('Drupal refused the change: title.0.value: Title: may not be longer than 255 characters.', $this->refused('node_update', ['nid' => $nid, 'fields' => ['title' => str_repeat('t', 256)]]));
    $this->assertStringContainsString('Drupal refused the change: title', $this->refused('node_update', ['nid' => $nid, 'fields' => ['title' => '']]));
  }

  public function testSearchFindsByTextStatusAndLimit(): void {
    $first = (string) $this->article('Published title', 'Teh body.')->id();
    $second = (string) $this->article('Alphanumeric node', 'Body of abc123.')->id();
    $this->assertSame([$second], array_column($this->ok('node_search', ['text' => 'ALPHANUMERIC'])['nodes'], 'nid'));
    $this->assertSame([$first], array_column($this->ok('node_search', ['text' => 'teh body'])['nodes'], 'nid'), 'the body is searched too');
    $this->assertCount(1, $this->ok('node_search', ['limit' => 1])['nodes']);
    $this->assertSame([], $this->ok('node_search', ['status' => 'draft'])['nodes']);

    $this->ok('node_create_draft_revision', ['nid' => $first]);
    $this->ok('node_update', ['nid' => $first, 'fields' => ['title' => 'Renamed']]);
    $this->assertSame([[$first, 'Renamed']], array_map(fn($n) => [$n['nid'], $n['title']], $this->ok('node_search', ['status' => 'draft', 'editContext' => TRUE])['nodes']));
    $this->assertSame([$first], array_column($this->ok('node_search', ['text' => 'renamed', 'editContext' => TRUE])['nodes'], 'nid'));
    $this->assertSame([], $this->ok('node_search', ['text' => 'renamed'])['nodes'], 'visitors\' revision keeps the old title');

    $this->assertStringContainsString('limit must be an integer from 1 to 50', $this->refused('node_search', ['limit' => 0]));
    $this->assertStringContainsString('status must be one of', $this->refused('node_search', ['status' => 'archived']));
    $this->assertStringContainsString('nid must be a string', $this->refused('node_search', ['nid' => [$first]]));
  }

  public function testSearchByIdAndByTextAgree(): void {
    // One query answers both, so the text matches as the database compares
    // it: SQLite folds the case of ASCII letters only.
    $nid = (string) $this->article('Über uns', 'Straße')->id();
    foreach (['über', 'Über', 'ÜBER', 'uns', 'UNS', 'straße', 'STRASSE'] as $text) {
      $by_text = array_column($this->ok('node_search', ['text' => $text])['nodes'], 'nid');
      $by_id = array_column($this->ok('node_search', ['nid' => $nid, 'text' => $text])['nodes'], 'nid');
      $this->assertSame($by_text, $by_id, $text);
    }
    $this->assertSame([$nid], array_column($this->ok('node_search', ['nid' => $nid, 'text' => 'UNS'])['nodes'], 'nid'));
    $this->assertSame([$nid], array_column($this->ok('node_search', ['nid' => $nid, 'text' => 'Über'])['nodes'], 'nid'));
  }

  public function testMissingAndImpossibleNodesAreNotFound(): void {
    $nid = (string) $this->article('Published title')->id();
    foreach (['9999', 'missing', '../etc/passwd', str_repeat('9', 65)] as $missing) {
      $this->assertStringContainsString('not found', $this->refused('node_create_draft_revision', ['nid' => $missing]));
      $this->assertSame([], $this->ok('node_search', ['nid' => $missing])['nodes']);
    }
    $this->assertSame($nid, $this->ok('node_search', ['nid' => (int) $nid])['nodes'][0]['nid'], 'a numeric id is taken as its string');
  }

  public function testImagesAreInlineWithAbsoluteUrls(): void {
    $nid = (string) $this->article('With image', 'b', ['field_image' => [$this->image('public://2026-11/cover.png', 'Cover')]])->id();
    $media = $this->ok('node_search', ['nid' => $nid])['nodes'][0]['fields']['media'];
    $this->assertSame([['url' => $this->container->get('file_url_generator')->generateAbsoluteString('public://2026-11/cover.png'), 'alt' => 'Cover']], $media);
    $this->assertMatchesRegularExpression('#^https?://.+/2026-11/cover\.png$#', $media[0]['url']);
    $plain = (string) $this->article('No image')->id();
    $this->assertArrayNotHasKey('media', $this->ok('node_search', ['nid' => $plain])['nodes'][0]['fields'], 'no images, no media key');
  }

  public function testPublishingIsRefusedToAUserWhoMayNotChangeTheStatus(): void {
    Role::load($this->toolsUser->getRoles(TRUE)[0])->revokePermission('administer nodes')->save();
    $nid = (string) $this->article('Published title')->id();
    $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->assertStringContainsString("Access denied: the tools user may not publish node $nid", $this->refused('node_publish', ['nid' => $nid]));
    $this->assertCount(2, $this->revisions($nid));
  }

  public function testSiteInfo(): void {
    $this->assertSame(['name' => 'Kernel site', 'version' => \Drupal::VERSION], $this->ok('site_info'));
  }

}
