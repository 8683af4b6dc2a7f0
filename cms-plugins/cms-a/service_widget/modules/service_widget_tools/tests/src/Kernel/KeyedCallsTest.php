<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

/**
 * Tool calls keyed by the Service are made once per key.
 *
 * @group service_widget_tools
 */
class KeyedCallsTest extends ToolsKernelTestBase {

  /**
   * A tools/call with an idempotency key in its _meta: the tool result.
   */
  protected function keyed(string $key, string $tool, array $arguments): array {
    $reply = $this->rpc('tools/call', ['name' => $tool, 'arguments' => $arguments, '_meta' => ['service/idempotency-key' => $key]]);
    $this->assertArrayHasKey('result', $reply, json_encode($reply));
    return $reply['result'];
  }

  public function testAKeyedWriteIsMadeOnceAndItsRepeatGetsTheFirstResult(): void {
    $node = $this->article('Published title');
    $first = $this->keyed('call-draft.1', 'node_create_draft_revision', ['nid' => (string) $node->id()]);
    $again = $this->keyed('call-draft.1', 'node_create_draft_revision', ['nid' => (string) $node->id()]);
    $this->assertArrayNotHasKey('_meta', $first);
    $this->assertSame(['service/idempotent-replayed' => TRUE], $again['_meta']);
    $this->assertSame($first['structuredContent'], $again['structuredContent']);
    $this->assertCount(2, $this->revisions($node->id()), 'one draft, not two');

    $update = ['nid' => (string) $node->id(), 'fields' => ['title' => 'Written once']];
    $this->keyed('call-update.1', 'node_update', $update);
    $revisions = $this->revisions($node->id());
    $this->keyed('call-update.1', 'node_update', $update);
    $this->assertSame($revisions, $this->revisions($node->id()), 'the repeat changed nothing');
    // Without a key, the same call writes again.
    $this->ok('node_create_draft_revision', ['nid' => (string) $node->id()]);
  }

  public function testAKeyUsedForAnotherToolIsRefusedAndARefusedCallFreesItsKey(): void {
    $node = $this->article('Published title');
    $this->keyed('call-reuse.1', 'node_create_draft_revision', ['nid' => (string) $node->id()]);
    $other = $this->keyed('call-reuse.1', 'node_publish', ['nid' => (string) $node->id()]);
    $this->assertTrue($other['isError']);
    $this->assertSame('This idempotency key was used for another tool call.', $other['content'][0]['text']);

    $refused = $this->keyed('call-refused.1', 'node_update', ['nid' => '999999', 'fields' => ['title' => 'x']]);
    $this->assertTrue($refused['isError']);
    $this->assertSame(0, (int) $this->container->get('database')->select('service_widget_tools_call')->condition('id', hash('sha256', $this->toolsUser->id() . '|call-refused.1'))->countQuery()->execute()->fetchField());
  }

  public function testAMalformedKeyIsInvalidParams(): void {
    $reply = $this->rpc('tools/call', ['name' => 'site_info', 'arguments' => new \stdClass(), '_meta' => ['service/idempotency-key' => 'short']]);
    $this->assertSame(-32602, $reply['error']['code']);
  }

  public function testCronDeletesResultsOlderThanADay(): void {
    $database = $this->container->get('database');
    $database->insert('service_widget_tools_call')->fields(['id' => str_repeat('a', 64), 'tool' => 'node_update', 'state' => 'done', 'result' => '{}', 'created' => time() - 90000])->execute();
    $database->insert('service_widget_tools_call')->fields(['id' => str_repeat('b', 64), 'tool' => 'node_update', 'state' => 'done', 'result' => '{}', 'created' => time()])->execute();
    $this->container->get('service_widget_tools.call_log')->prune();
    $this->assertSame([str_repeat('b', 64)], $database->select('service_widget_tools_call', 'c')->fields('c', ['id'])->execute()->fetchCol());
  }

}
