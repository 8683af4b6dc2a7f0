<?php

namespace Drupal\service_widget_tools\Controller;

use Drupal\Core\DependencyInjection\ContainerInjectionInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Http\McpResponses;
use Drupal\service_widget_tools\Mcp\McpServer;
use Symfony\Component\DependencyInjection\ContainerInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * /_mcp_tools: MCP over Streamable HTTP with JSON responses.
 *
 * The request reaches the controller authenticated as the tools user: the
 * key is checked by ToolsKeyAuthentication, and a refused request is answered
 * by McpToolsRefusalSubscriber. Here: GET (an MCP client opening an event
 * stream) and DELETE (ending a session) are 405, as the transport allows; a
 * POST's body is checked for size and type, then the JSON-RPC message is
 * read and answered.
 */
class McpToolsController implements ContainerInjectionInterface {

  /**
   * The largest request body read, in bytes.
   */
  const MAX_BODY_BYTES = 1048576;

  /**
   * Constructs the controller.
   *
   * @param \Drupal\service_widget_tools\Mcp\McpServer $server
   *   The JSON-RPC server.
   * @param \Drupal\Core\Session\AccountInterface $currentUser
   *   The current user: the tools user.
   */
  public function __construct(
    protected readonly McpServer $server,
    protected readonly AccountInterface $currentUser,
  ) {
  }

  /**
   * {@inheritdoc}
   */
  public static function create(ContainerInterface $container) {
    return new static(
      $container->get('service_widget_tools.mcp_server'),
      $container->get('current_user'),
    );
  }

  /**
   * Answers one MCP request.
   */
  public function handle(Request $request): Response {
    if ($request->getMethod() !== 'POST') {
      return McpResponses::postOnly();
    }
    $length = $request->headers->get('Content-Length');
    if ($length !== NULL && (int) $length > self::MAX_BODY_BYTES) {
      return McpResponses::plain(413, 'The request body is larger than ' . self::MAX_BODY_BYTES . ' bytes.');
    }
    $body = stream_get_contents($request->getContent(TRUE), self::MAX_BODY_BYTES + 1);
    if ($body === FALSE || strlen($body) > self::MAX_BODY_BYTES) {
      return McpResponses::plain(413, 'The request body is larger than ' . self::MAX_BODY_BYTES . ' bytes.');
    }
    if (!preg_match('#^application/json\b#i', (string) $request->headers->get('Content-Type'))) {
      return McpResponses::plain(415, 'Send a JSON-RPC message as application/json.');
    }
    try {
      $message = json_decode($body, TRUE, 64, JSON_THROW_ON_ERROR);
    }
    catch (\JsonException $e) {
      return McpResponses::json(['jsonrpc' => '2.0', 'id' => NULL, 'error' => ['code' => -32700, 'message' => 'Parse error: the body is not JSON.']], 400);
    }
    if (!is_array($message) || array_is_list($message)) {
      return McpResponses::json(['jsonrpc' => '2.0', 'id' => NULL, 'error' => ['code' => McpServer::INVALID_REQUEST, 'message' => 'Invalid Request: send one JSON-RPC object (batches are not supported).']], 400);
    }
    $reply = $this->server->handle($message, $this->currentUser);
    return $reply === NULL ? new Response('', 202, ['Cache-Control' => 'no-store']) : McpResponses::json($reply, 200);
  }

}
