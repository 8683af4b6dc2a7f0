<?php

namespace Drupal\service_widget_tools\Mcp;

use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Tool\ToolCollection;
use Psr\Log\LoggerInterface;

/**
 * The JSON-RPC 2.0 side of _mcp_tools: the MCP methods a tools client uses.
 *
 * Stateless: no session id is issued, every request stands alone, and each
 * answer is one JSON object (Streamable HTTP allows a JSON response in place
 * of an event stream).
 */
class McpServer {

  /**
   * The MCP protocol versions this server speaks, newest first.
   */
  const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

  /**
   * JSON-RPC error codes.
   */
  const INVALID_REQUEST = -32600;
  const METHOD_NOT_FOUND = -32601;
  const INVALID_PARAMS = -32602;

  /**
   * Constructs the server.
   *
   * @param \Drupal\service_widget_tools\Tool\ToolCollection $tools
   *   The tools.
   * @param \Psr\Log\LoggerInterface $logger
   *   The module's logger channel.
   * @param \Drupal\service_widget_tools\Mcp\CallLog $callLog
   *   Keyed calls and their results (each key's call is made once).
   */
  public function __construct(
    protected readonly ToolCollection $tools,
    protected readonly LoggerInterface $logger,
    protected readonly CallLog $callLog,
  ) {
  }

  /**
   * Answers one JSON-RPC message.
   *
   * @param array $message
   *   The decoded message (a JSON object).
   * @param \Drupal\Core\Session\AccountInterface $tools_user
   *   The account the tools act as: the request is authenticated as it.
   *
   * @return array|null
   *   The response, or NULL for a notification (or a response), which gets
   *   none.
   */
  public function handle(array $message, AccountInterface $tools_user): ?array {
    $id = $message['id'] ?? NULL;
    if (!array_key_exists('method', $message) && (array_key_exists('result', $message) || array_key_exists('error', $message))) {
      return NULL;
    }
    if (($message['jsonrpc'] ?? NULL) !== '2.0' || !is_string($message['method'] ?? NULL) || !(is_string($id) || is_int($id) || $id === NULL)) {
      return $this->error($id, self::INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 request with a method.');
    }
    if (!array_key_exists('id', $message)) {
      // notifications/initialized, notifications/cancelled: nothing to answer.
      return NULL;
    }
    $params = $message['params'] ?? [];
    if (!is_array($params) || ($params !== [] && array_is_list($params))) {
      return $this->error($id, self::INVALID_PARAMS, 'params must be an object.');
    }
    switch ($message['method']) {
      case 'initialize':
        $requested = $params['protocolVersion'] ?? NULL;
        return $this->result($id, [
          'protocolVersion' => in_array($requested, self::PROTOCOL_VERSIONS, TRUE) ? $requested : self::PROTOCOL_VERSIONS[0],
          'capabilities' => ['tools' => ['listChanged' => FALSE]],
          'serverInfo' => ['name' => 'service_widget_tools', 'version' => '1.0.0'],
        ]);

      case 'ping':
        return $this->result($id, new \stdClass());

      case 'tools/list':
        return $this->result($id, ['tools' => $this->tools->definitions()]);

      case 'tools/call':
        return $this->callTool($id, $params, $tools_user);
    }
    return $this->error($id, self::METHOD_NOT_FOUND, "Method not found: {$message['method']}");
  }

  /**
   * Answers tools/call: the tool runs as the tools user.
   *
   * A call whose `_meta` carries "service/idempotency-key" is made once per
   * key: a repeat gets the first call's result, its `_meta` saying
   * "service/idempotent-replayed".
   */
  protected function callTool($id, array $params, AccountInterface $tools_user): array {
    $name = $params['name'] ?? NULL;
    $tool = is_string($name) ? $this->tools->get($name) : NULL;
    if ($tool === NULL) {
      return $this->error($id, self::INVALID_PARAMS, 'Unknown tool: ' . (is_string($name) ? $name : '(no name)'));
    }
    $arguments = $params['arguments'] ?? [];
    if (!is_array($arguments) || ($arguments !== [] && array_is_list($arguments))) {
      return $this->error($id, self::INVALID_PARAMS, 'arguments must be an object.');
    }
    $key = $params['_meta']['service/idempotency-key'] ?? NULL;
    if ($key !== NULL && (!is_string($key) || !preg_match('/^[A-Za-z0-9._:-]{8,200}$/', $key))) {
      return $this->error($id, self::INVALID_PARAMS, 'The idempotency key must be 8 to 200 letters, digits, dots, colons, underscores or dashes.');
    }
    try {
      $replayed = FALSE;
      if ($key === NULL) {
        $result = $tool->call($arguments, $tools_user);
      }
      else {
        ['result' => $result, 'replayed' => $replayed] = $this->callLog->once($key, (int) $tools_user->id(), $name, fn () => $tool->call($arguments, $tools_user));
      }
      return $this->result($id, [
        'content' => [['type' => 'text', 'text' => json_encode($result, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE | JSON_THROW_ON_ERROR)]],
        'structuredContent' => $result,
      ] + ($replayed ? ['_meta' => ['service/idempotent-replayed' => TRUE]] : []));
    }
    catch (ToolError $refusal) {
      return $this->result($id, $this->toolError($refusal->getMessage()));
    }
    catch (\Throwable $failure) {
      // The details stay in the site's log; they may name tables or paths.
      $this->logger->error('Tool @tool failed: @message', ['@tool' => $name, '@message' => $failure->getMessage()]);
      return $this->result($id, $this->toolError("The tool $name failed on the site; its log (channel service_widget_tools) has the details."));
    }
  }

  /**
   * A tool result that reports a failure.
   */
  protected function toolError(string $message): array {
    return ['content' => [['type' => 'text', 'text' => $message]], 'isError' => TRUE];
  }

  /**
   * A JSON-RPC result.
   */
  protected function result($id, $result): array {
    return ['jsonrpc' => '2.0', 'id' => $id, 'result' => $result];
  }

  /**
   * A JSON-RPC error.
   */
  protected function error($id, int $code, string $message): array {
    return ['jsonrpc' => '2.0', 'id' => $id, 'error' => ['code' => $code, 'message' => $message]];
  }

}
