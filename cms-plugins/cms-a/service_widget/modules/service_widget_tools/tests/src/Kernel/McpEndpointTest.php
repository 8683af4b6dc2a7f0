<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

use Drupal\Core\Logger\RfcLogLevel;
use Drupal\service_widget_tools\ToolsKey;

/**
 * The HTTP side of /_mcp_tools, through Drupal's HTTP kernel.
 *
 * @group service_widget_tools
 */
class McpEndpointTest extends ToolsKernelTestBase {

  /**
   * A tools/call creating a draft of the node.
   */
  protected function draftCall(int|string $nid): string {
    return json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/call', 'params' => ['name' => 'node_create_draft_revision', 'arguments' => ['nid' => (string) $nid]]]);
  }

  public function testAMissingOrWrongKeyIsAPlain401AndNothingRuns(): void {
    $node = $this->article('Published title');
    foreach ([NULL, 'Bearer wrong', 'Basic ' . self::KEY, 'Bearer ' . self::KEY . 'x', 'Bearer ' . substr(self::KEY, 0, -1), self::KEY, 'Bearer'] as $authorization) {
      $response = $this->post($this->draftCall($node->id()), ['Authorization' => $authorization]);
      $this->assertSame(401, $response->getStatusCode(), (string) $authorization);
      $this->assertSame('Bearer realm="_mcp_tools"', $response->headers->get('WWW-Authenticate'));
      $this->assertSame('text/plain; charset=utf-8', $response->headers->get('Content-Type'));
      $this->assertStringStartsWith('Unauthorized: ', $response->getContent());
    }
    $this->assertCount(1, $this->revisions($node->id()), 'no draft was written');
    $this->assertSame(200, $this->post($this->draftCall($node->id()), ['Authorization' => 'bearer ' . self::KEY])->getStatusCode(), 'the scheme is case-insensitive');
    $this->assertCount(2, $this->revisions($node->id()));
    $this->assertSame([], $this->logged(), 'refusals are not logged');
  }

  public function testWithNoKeyGeneratedEveryRequestIs401(): void {
    $this->container->get('state')->delete(ToolsKey::STATE);
    foreach (['Bearer ' . self::KEY, 'Bearer ' . hash('sha256', ''), 'Bearer '] as $authorization) {
      $this->assertSame(401, $this->post('{}', ['Authorization' => $authorization])->getStatusCode());
    }
  }

  public function testTheKeyIsStoredOnlyAsAHash(): void {
    $key = $this->container->get('service_widget_tools.key');
    $generated = $key->generate();
    $this->assertMatchesRegularExpression('/^swt_[A-Za-z0-9_-]{43}$/', $generated);
    $this->assertSame(hash('sha256', $generated), $this->container->get('state')->get(ToolsKey::STATE));
    $this->assertTrue($key->verify($generated));
    $this->assertFalse($key->verify(self::KEY), 'a new key stops the old one');
    $this->assertSame(401, $this->post('{}')->getStatusCode());
  }

  public function testABrowserRequestIsRefusedBeforeTheKeyCheck(): void {
    foreach (['Bearer wrong', 'Bearer ' . self::KEY, NULL] as $authorization) {
      $response = $this->post('{}', ['Origin' => 'https://evil.example', 'Authorization' => $authorization]);
      $this->assertSame(403, $response->getStatusCode());
      $this->assertSame('Forbidden: _mcp_tools does not answer browsers.', $response->getContent());
    }
    $this->assertSame([], $this->logged());
  }

  public function testAnotherAuthenticationMethodIsNoKey(): void {
    // Only the module's provider may authenticate a request to the endpoint:
    // the tools user's own name and password through core's Basic Auth are
    // refused like any wrong key.
    $this->enableModules(['basic_auth']);
    $this->container->get('router.builder')->rebuild();
    $basic = 'Basic ' . base64_encode($this->toolsUser->getAccountName() . ':' . $this->toolsUser->passRaw);
    $response = $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/list']), ['Authorization' => $basic]);
    $this->assertSame(401, $response->getStatusCode());
    $this->assertSame([], $this->logged());
  }

  public function testGetAndDeleteArePlain405sAndLogNothing(): void {
    foreach (['GET', 'DELETE', 'PUT', 'PATCH'] as $method) {
      $response = $this->request($method, '', ['Accept' => 'text/event-stream']);
      $this->assertSame(405, $response->getStatusCode(), $method);
      $this->assertSame('POST', $response->headers->get('Allow'), $method);
      $this->assertSame('text/plain; charset=utf-8', $response->headers->get('Content-Type'), $method);
      $this->assertLessThan(200, strlen($response->getContent()), $method);
    }
    $this->assertSame(401, $this->request('GET', '', ['Authorization' => NULL])->getStatusCode(), 'the key is checked first');
    $this->assertSame([], $this->logged());
  }

  public function testWithoutAnActiveToolsUserTheAnswerSaysWhatToSetUp(): void {
    $this->config('service_widget_tools.settings')->set('tools_uid', 0)->save();
    $response = $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/list']));
    $this->assertSame(403, $response->getStatusCode());
    $this->assertStringContainsString('/admin/config/services/service-widget/tools', $response->getContent());
    $this->config('service_widget_tools.settings')->set('tools_uid', (int) $this->toolsUser->id())->save();
    $this->toolsUser->block()->save();
    $this->assertSame(403, $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/list']))->getStatusCode());
    $this->assertSame([], $this->logged());
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
    $this->assertSame(-32602, $this->rpc('tools/call', ['name' => 'node_delete', 'arguments' => ['nid' => '1']])['error']['code']);
    $this->assertSame(-32602, $this->rpc('tools/call', ['name' => 'node_search', 'arguments' => ['a', 'b']])['error']['code']);
  }

  public function testToolsRunAsTheToolsUser(): void {
    $node = $this->article('Published title');
    $draft = $this->ok('node_create_draft_revision', ['nid' => (string) $node->id()]);
    $revision = $this->container->get('entity_type.manager')->getStorage('node')->loadRevision($draft['revisionId']);
    $this->assertSame((int) $this->toolsUser->id(), (int) $revision->getRevisionUserId());
  }

  public function testAFailureOnTheSiteIsAToolErrorWithTheDetailsOnlyInTheLog(): void {
    $node = $this->article('Published title');
    $this->container->get('state')->set('service_widget_tools_test.fail', 'SQLSTATE[42S02]: node_field_revision is missing');
    $text = $this->refused('node_create_draft_revision', ['nid' => (string) $node->id()]);
    $this->assertStringNotContainsString('SQLSTATE', $text);
    $this->assertStringContainsString('service_widget_tools', $text);
    $ours = array_values(array_filter($this->logged(), fn($record) => $record[1] === 'service_widget_tools'));
    $this->assertSame([[RfcLogLevel::ERROR, 'service_widget_tools', 'Tool node_create_draft_revision failed: SQLSTATE[42S02]: node_field_revision is missing']], $ours);
  }

  public function testTextThatIsNotUtf8IsAnsweredNotAFailure(): void {
    $node = $this->article("Caf\xe9");
    $response = $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 1, 'method' => 'tools/call', 'params' => ['name' => 'node_search', 'arguments' => ['nid' => (string) $node->id()]]]));
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
