<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

use Drupal\Tests\content_moderation\Traits\ContentModerationTestTrait;
use Drupal\user\Entity\Role;

/**
 * The shared contract fixture, step by step on real core, with core's
 * pending revisions and with Content Moderation.
 *
 * The fixture's node ids ("42", "abc123", "locked") are the seed's names;
 * here they stand for the ids Drupal gave the seeded nodes, and "missing"
 * for an id no node has.
 *
 * @group service_widget_tools
 */
class ContractTest extends ToolsKernelTestBase {

  use ContentModerationTestTrait;

  /**
   * Fixture node names => the ids Drupal gave them.
   */
  protected array $ids = [];

  /**
   * The two ways a site keeps drafts.
   */
  public static function sites(): array {
    return ['core pending revisions' => [FALSE], 'Content Moderation' => [TRUE]];
  }

  /**
   * @dataProvider sites
   */
  public function testEveryStepAnswersAsTheFixtureSays(bool $moderated): void {
    if ($moderated) {
      $this->moderate();
    }
    $fixture = json_decode(file_get_contents(dirname(__DIR__, 2) . '/fixtures/mcp_tools_contract.json'), TRUE, 512, JSON_THROW_ON_ERROR);
    $this->seed($fixture['seed']);
    $bound = [];
    $departures = [];
    foreach ($fixture['steps'] as $step) {
      $result = $this->call($step['tool'], $this->toDrupal($step['arguments']));
      $text = $result['content'][0]['text'] ?? '';
      if (isset($step['error'])) {
        $found = ($result['isError'] ?? FALSE) && preg_match('/' . str_replace('/', '\/', $step['error']) . '/i', $text) ? [] : ["expected an error matching /{$step['error']}/i, got $text"];
      }
      elseif ($result['isError'] ?? FALSE) {
        $found = ["expected a result, got the error $text"];
      }
      else {
        $found = ContractMatcher::departures($this->toDrupal($step['result']), $result['structuredContent'], $bound, '$');
      }
      if ($found) {
        $departures[$step['name']] = $found;
      }
    }
    $this->assertSame([], $departures);
    $this->assertGreaterThanOrEqual(15, count($fixture['steps']));

    // Publishing left one new published revision and the one before it.
    $revisions = $this->revisions($this->ids['42']);
    $this->assertSame(['published', 'Published title', FALSE], array_slice($revisions[0], 1));
    $this->assertSame(['published', 'Edited title', TRUE], array_slice(end($revisions), 1));
    $this->assertCount(1, array_filter($revisions, fn($r) => $r[1] === 'published' && $r[2] === 'Edited title'));
  }

  public function testTheMatcherIsStrict(): void {
    $bound = ['r' => 7];
    $this->assertSame([], ContractMatcher::departures(['a' => 1, 'b' => ['$type' => 'string'], 'c' => ['$bind' => 'r']], ['a' => 1, 'b' => 'x', 'c' => 7], $bound, '$'));
    $this->assertSame(['$.a: expected 1, got 2'], ContractMatcher::departures(['a' => 1], ['a' => 2], $bound, '$'));
    $this->assertSame(['$.a: missing'], ContractMatcher::departures(['a' => 1], [], $bound, '$'));
    $this->assertSame(['$.z: not in the contract'], ContractMatcher::departures(['a' => 1], ['a' => 1, 'z' => 0], $bound, '$'));
    $this->assertSame(['$.c: expected r = 7, got 8'], ContractMatcher::departures(['c' => ['$bind' => 'r']], ['c' => 8], $bound, '$'));
    $this->assertSame(['$.b: expected a string, got 3'], ContractMatcher::departures(['b' => ['$type' => 'string']], ['b' => 3], $bound, '$'));
    $this->assertSame(['$: expected 2 items, got [1]'], ContractMatcher::departures([1, 2], [1], $bound, '$'));
  }

  /**
   * Puts articles under the editorial workflow; the tools user gets its
   * transitions.
   */
  protected function moderate(): void {
    $this->enableModules(['workflows', 'content_moderation']);
    $this->installEntitySchema('content_moderation_state');
    $this->installConfig(['content_moderation']);
    $workflow = $this->createEditorialWorkflow();
    $workflow->getTypePlugin()->addEntityTypeAndBundle('node', 'article');
    $workflow->save();
    Role::load($this->toolsUser->getRoles(TRUE)[0])
      ->grantPermission('use editorial transition create_new_draft')
      ->grantPermission('use editorial transition publish')
      ->save();
  }

  /**
   * Creates the fixture's nodes, published, and notes their ids.
   */
  protected function seed(array $seed): void {
    foreach ($seed as $node) {
      $images = array_map(fn($image) => $this->image($image['url'], $image['alt']), $node['fields']['media'] ?? []);
      $this->ids[$node['nid']] = (string) $this->article($node['title'], $node['fields']['body'], [
        'body' => ['value' => $node['fields']['body'], 'summary' => $node['fields']['summary'], 'format' => 'basic_html'],
        'field_image' => $images,
        'moderation_state' => 'published',
      ])->id();
      if (($node['toolsUserMayEditFields'] ?? TRUE) === FALSE) {
        $this->container->get('state')->set('service_widget_tools_test.locked', [(int) $this->ids[$node['nid']]]);
      }
    }
    $this->ids['missing'] = '9999';
  }

  /**
   * Fixture values with the seed's node names replaced by Drupal's ids.
   */
  protected function toDrupal(array $value): array {
    foreach ($value as $key => $item) {
      if ($key === 'nid' && is_string($item)) {
        $value[$key] = $this->ids[$item] ?? $item;
      }
      elseif (is_array($item)) {
        $value[$key] = $this->toDrupal($item);
      }
    }
    return $value;
  }

}
