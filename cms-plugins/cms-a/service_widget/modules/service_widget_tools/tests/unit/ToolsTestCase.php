<?php

namespace ServiceWidgetTools\Tests;

use PHPUnit\Framework\TestCase;
use ServiceWidgetTools\StandIn\InMemorySite;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * A site seeded from the contract fixture, and requests to its /_mcp_tools.
 */
abstract class ToolsTestCase extends TestCase {

  const KEY = 'swt_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

  protected InMemorySite $site;

  protected function setUp(): void {
    $this->site = InMemorySite::fromFixture(service_widget_tools_contract_fixture());
    $this->site->setKey(self::KEY);
  }

  /**
   * POSTs a body to /_mcp_tools through the module's controller.
   */
  protected function post(string $body, array $headers = []): Response {
    $server = [];
    foreach ($headers + ['Authorization' => 'Bearer ' . self::KEY, 'Content-Type' => 'application/json'] as $name => $value) {
      if ($value !== NULL) {
        $key = strtoupper(str_replace('-', '_', $name));
        $server[in_array($key, ['CONTENT_TYPE', 'CONTENT_LENGTH'], TRUE) ? $key : "HTTP_$key"] = $value;
      }
    }
    return $this->site->controller()->handle(Request::create('/_mcp_tools', 'POST', [], [], [], $server, $body));
  }

  /**
   * A JSON-RPC request answered with 200: the decoded response.
   */
  protected function rpc(string $method, array $params = []): array {
    $response = $this->post(json_encode(['jsonrpc' => '2.0', 'id' => 7, 'method' => $method, 'params' => $params ?: new \stdClass()]));
    $this->assertSame(200, $response->getStatusCode(), (string) $response->getContent());
    $this->assertSame('application/json', $response->headers->get('Content-Type'));
    $reply = json_decode($response->getContent(), TRUE, 512, JSON_THROW_ON_ERROR);
    $this->assertSame(7, $reply['id']);
    return $reply;
  }

  /**
   * A tools/call: the tool result (content, structuredContent or isError).
   */
  protected function call(string $tool, array $arguments = []): array {
    $reply = $this->rpc('tools/call', ['name' => $tool, 'arguments' => $arguments ?: new \stdClass()]);
    $this->assertArrayHasKey('result', $reply, json_encode($reply));
    return $reply['result'];
  }

  /**
   * A tool call that must succeed: its structured result.
   */
  protected function ok(string $tool, array $arguments = []): array {
    $result = $this->call($tool, $arguments);
    $this->assertArrayNotHasKey('isError', $result, $result['content'][0]['text'] ?? '');
    $this->assertSame($result['structuredContent'], json_decode($result['content'][0]['text'], TRUE));
    return $result['structuredContent'];
  }

  /**
   * A tool call that must be refused: the text of its error.
   */
  protected function refused(string $tool, array $arguments = []): string {
    $result = $this->call($tool, $arguments);
    $this->assertTrue($result['isError'] ?? FALSE, 'expected a tool error, got ' . json_encode($result));
    $this->assertArrayNotHasKey('structuredContent', $result);
    return $result['content'][0]['text'];
  }

}
