<?php

namespace ServiceWidgetTools\Tests;

use Drupal\service_widget_tools\ToolsKey;

/**
 * The HTTP and JSON-RPC side of /_mcp_tools.
 */
class McpToolsControllerTest extends ToolsTestCase {

  public function testAMissingOrWrongKeyIs401AndNothingRuns(): void {
    $draft = json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/call', 'params' => ['name' => 'node_create_draft_revision', 'arguments' => ['nid' => '42']]]);
    foreach ([NULL, 'Bearer wrong', 'Basic ' . self::KEY, 'Bearer ' . self::KEY . 'x', 'Bearer ' . substr(self::KEY, 0, -1), self::KEY, 'Bearer'] as $authorization) {
      $response = $this->post($draft, ['Authorization' => $authorization]);
      $this->assertSame(401, $response->getStatusCode(), (string) $authorization);
      $this->assertSame('Bearer realm="_mcp_tools"', $response->headers->get('WWW-Authenticate'));
    }
    $this->assertSame([], $this->site->nodes->saves);
    $this->assertSame([], $this->site->nodes->callers, 'no storage call before the key check');
    $this->assertSame(200, $this->post($draft, ['Authorization' => 'bearer ' . self::KEY])->getStatusCode(), 'the scheme is case-insensitive');
  }

  public function testWithNoKeyGeneratedEveryRequestIs401(): void {
    $this->site->state->delete(ToolsKey::STATE);
    foreach (['Bearer ' . self::KEY, 'Bearer ' . hash('sha256', ''), 'Bearer '] as $authorization) {
      $this->assertSame(401, $this->post('{}', ['Authorization' => $authorization])->getStatusCode());
    }
  }

  public function testTheKeyIsStoredOnlyAsAHash(): void {
    $key = new ToolsKey($this->site->state);
    $generated = $key->generate();
    $this->assertMatchesRegularExpression('/^swt_[A-Za-z0-9_-]{43}$/', $generated);
    $this->assertSame([ToolsKey::STATE => hash('sha256', $generated)], $this->site->state->data);
    $this->assertTrue($key->verify($generated));
    $this->assertFalse($key->verify(self::KEY), 'a new key stops the old one');
    $this->assertNotSame($generated, $key->generate());
  }

  public function testABrowserRequestIsRefusedBeforeTheKeyCheck(): void {
    $this->assertSame(403, $this->post('{}', ['Origin' => 'https://evil.example', 'Authorization' => 'Bearer wrong'])->getStatusCode());
    $this->assertSame(403, $this->post('{}', ['Origin' => 'https://evil.example'])->getStatusCode());
  }

  public function testTheBodyIsCappedAndMustBeJson(): void {
    $this->assertSame(413, $this->post('{}', ['Content-Length' => '1048577'])->getStatusCode());
    $this->assertSame(413, $this->post('"' . str_repeat('a', 1048576) . '"')->getStatusCode());
    $this->assertSame(415, $this->post('{}', ['Content-Type' => 'text/plain'])->getStatusCode());

    $garbled = $this->post('{"jsonrpc":');
    $this->assertSame(400, $garbled->getStatusCode());
    $this->assertSame(-32700, json_decode($garbled->getContent(), TRUE)['error']['code']);

    $batch = $this->post(json_encode([['jsonrpc' => '2.0', 'id' => 1, 'method' => 'ping']]));
    $this->assertSame(400, $batch->getStatusCode());
    $this->assertSame(-32600, json_decode($batch->getContent(), TRUE)['error']['code']);

    $this->assertSame(-32600, $this->rpcRaw(['jsonrpc' => '1.0', 'id' => 7, 'method' => 'ping'])['error']['code']);
    $this->assertSame(-32602, $this->rpcRaw(['jsonrpc' => '2.0', 'id' => 7, 'method' => 'tools/list', 'params' => [1, 2]])['error']['code']);
  }

  public function testInitializeNegotiatesTheProtocolVersion(): void {
    $result = $this->rpc('initialize', ['protocolVersion' => '2025-06-18', 'capabilities' => new \stdClass(), 'clientInfo' => ['name' => 'test', 'version' => '1']])['result'];
    $this->assertSame(['protocolVersion' => '2025-06-18', 'capabilities' => ['tools' => ['listChanged' => FALSE]], 'serverInfo' => ['name' => 'service_widget_tools', 'version' => '1.0.0']], $result);
    $this->assertSame('2025-11-25', $this->rpc('initialize', ['protocolVersion' => '1999-01-01'])['result']['protocolVersion']);
    $this->assertSame([], $this->rpc('ping')['result']);
  }

  public function testNotificationsAreAcceptedWithoutAnAnswer(): void {
    foreach (['notifications/initialized', 'notifications/cancelled'] as $method) {
      $response = $this->post(json_encode(['jsonrpc' => '2.0', 'method' => $method]));
      $this->assertSame(202, $response->getStatusCode());
      $this->assertSame('', $response->getContent());
    }
  }

  public function testToolsListNamesTheFiveToolsWithObjectSchemas(): void {
    $tools = $this->rpc('tools/list')['result']['tools'];
    $this->assertSame(['site_info', 'node_search', 'node_create_draft_revision', 'node_update', 'node_publish'], array_column($tools, 'name'));
    foreach ($tools as $tool) {
      $this->assertSame('object', $tool['inputSchema']['type']);
      $this->assertNotSame('', $tool['description']);
    }
    // An empty properties map is a JSON object, as JSON Schema requires.
    $this->assertStringContainsString('"properties":{}', $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/list']))->getContent());
  }

  public function testUnknownMethodsAndToolsAreProtocolErrors(): void {
    $this->assertSame(-32601, $this->rpc('resources/list')['error']['code']);
    $this->assertSame(-32602, $this->rpc('tools/call', ['name' => 'node_delete', 'arguments' => ['nid' => '42']])['error']['code']);
    $this->assertSame(-32602, $this->rpc('tools/call', ['name' => 'node_search', 'arguments' => ['a', 'b']])['error']['code']);
  }

  public function testToolsRunAsTheToolsUserAndSwitchBack(): void {
    $this->ok('node_search', ['nid' => '42']);
    $this->assertNotEmpty($this->site->nodes->callers);
    $this->assertSame([2], array_values(array_unique($this->site->nodes->callers)));
    $this->assertSame([], $this->site->switcher->stack);
  }

  public function testWithoutAnActiveToolsUserToolsSayWhatToSetUp(): void {
    $this->site->settings->data['tools_uid'] = 0;
    $this->assertStringContainsString('/admin/config/services/service-widget/tools', $this->refused('site_info'));
    $this->site->settings->data['tools_uid'] = 2;
    $this->site->users->data[2]['active'] = FALSE;
    $this->assertStringContainsString('not set up', $this->refused('node_search', ['nid' => '42']));
    $this->assertSame([], $this->site->nodes->callers);
  }

  public function testAFailureOnTheSiteIsAToolErrorWithTheDetailsOnlyInTheLog(): void {
    $this->site->nodes->failure = new \RuntimeException('SQLSTATE[42S02]: node_field_revision is missing');
    $text = $this->refused('node_create_draft_revision', ['nid' => '42']);
    $this->assertStringNotContainsString('SQLSTATE', $text);
    $this->assertStringContainsString('service_widget_tools', $text);
    $this->assertSame([['error', 'Tool node_create_draft_revision failed: SQLSTATE[42S02]: node_field_revision is missing']], $this->site->logger->records);
    $this->assertSame([], $this->site->switcher->stack, 'switched back after a failure too');
  }

  public function testTextThatIsNotUtf8IsAnsweredNotAFailure(): void {
    $this->site->nodes->seed('9', 'article', "Caf\xe9", ['body' => 'b']);
    $response = $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/call', 'params' => ['name' => 'node_search', 'arguments' => ['nid' => '9']]]));
    $this->assertSame(200, $response->getStatusCode());
    $this->assertSame("Caf\u{FFFD}", json_decode($response->getContent(), TRUE)['result']['structuredContent']['nodes'][0]['title']);
  }

  /**
   * A raw JSON-RPC message answered with 200: the decoded response.
   */
  protected function rpcRaw(array $message): array {
    $response = $this->post(json_encode($message));
    $this->assertSame(200, $response->getStatusCode());
    return json_decode($response->getContent(), TRUE);
  }

}
