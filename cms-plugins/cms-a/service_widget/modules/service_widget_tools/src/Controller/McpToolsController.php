<?php

namespace Drupal\service_widget_tools\Controller;

use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\DependencyInjection\ContainerInjectionInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Mcp\McpServer;
use Drupal\service_widget_tools\ToolsKey;
use Symfony\Component\DependencyInjection\ContainerInterface;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * POST /_mcp_tools: MCP over Streamable HTTP with JSON responses.
 *
 * In order: a browser's request (it carries an Origin) is refused, then the
 * bearer key is checked in constant time, then the body's size and type;
 * only then is the JSON-RPC message read and answered.
 */
class McpToolsController implements ContainerInjectionInterface {

  /**
   * The largest request body read, in bytes.
   */
  const MAX_BODY_BYTES = 1048576;

  /**
   * The endpoint's key.
   *
   * @var \Drupal\service_widget_tools\ToolsKey
   */
  protected $key;

  /**
   * The JSON-RPC server.
   *
   * @var \Drupal\service_widget_tools\Mcp\McpServer
   */
  protected $server;

  /**
   * The config factory.
   *
   * @var \Drupal\Core\Config\ConfigFactoryInterface
   */
  protected $configFactory;

  /**
   * The entity type manager.
   *
   * @var \Drupal\Core\Entity\EntityTypeManagerInterface
   */
  protected $entityTypeManager;

  /**
   * Constructs the controller.
   *
   * @param \Drupal\service_widget_tools\ToolsKey $key
   *   The endpoint's key.
   * @param \Drupal\service_widget_tools\Mcp\McpServer $server
   *   The JSON-RPC server.
   * @param \Drupal\Core\Config\ConfigFactoryInterface $config_factory
   *   The config factory.
   * @param \Drupal\Core\Entity\EntityTypeManagerInterface $entity_type_manager
   *   The entity type manager.
   */
  public function __construct(ToolsKey $key, McpServer $server, ConfigFactoryInterface $config_factory, EntityTypeManagerInterface $entity_type_manager) {
    $this->key = $key;
    $this->server = $server;
    $this->configFactory = $config_factory;
    $this->entityTypeManager = $entity_type_manager;
  }

  /**
   * {@inheritdoc}
   */
  public static function create(ContainerInterface $container) {
    return new static(
      $container->get('service_widget_tools.key'),
      $container->get('service_widget_tools.mcp_server'),
      $container->get('config.factory'),
      $container->get('entity_type.manager'),
    );
  }

  /**
   * Answers one MCP request.
   */
  public function handle(Request $request): Response {
    // MCP servers refuse browsers' requests (DNS rebinding); the connector
    // calls from a server and sends no Origin.
    if ($request->headers->has('Origin')) {
      return $this->plain(403, 'Forbidden: _mcp_tools does not answer browsers.');
    }
    if (!$this->key->verify($this->bearer($request))) {
      return $this->plain(401, 'Unauthorized: send the key from the Service Widget tools settings as "Authorization: Bearer <key>".', ['WWW-Authenticate' => 'Bearer realm="_mcp_tools"']);
    }
    $length = $request->headers->get('Content-Length');
    if ($length !== NULL && (int) $length > self::MAX_BODY_BYTES) {
      return $this->plain(413, 'The request body is larger than ' . self::MAX_BODY_BYTES . ' bytes.');
    }
    $body = stream_get_contents($request->getContent(TRUE), self::MAX_BODY_BYTES + 1);
    if ($body === FALSE || strlen($body) > self::MAX_BODY_BYTES) {
      return $this->plain(413, 'The request body is larger than ' . self::MAX_BODY_BYTES . ' bytes.');
    }
    if (!preg_match('#^application/json\b#i', (string) $request->headers->get('Content-Type'))) {
      return $this->plain(415, 'Send a JSON-RPC message as application/json.');
    }
    try {
      $message = json_decode($body, TRUE, 64, JSON_THROW_ON_ERROR);
    }
    catch (\JsonException $e) {
      return $this->json(['jsonrpc' => '2.0', 'id' => NULL, 'error' => ['code' => -32700, 'message' => 'Parse error: the body is not JSON.']], 400);
    }
    if (!is_array($message) || array_is_list($message)) {
      return $this->json(['jsonrpc' => '2.0', 'id' => NULL, 'error' => ['code' => McpServer::INVALID_REQUEST, 'message' => 'Invalid Request: send one JSON-RPC object (batches are not supported).']], 400);
    }
    $reply = $this->server->handle($message, $this->toolsUser());
    return $reply === NULL ? new Response('', 202, ['Cache-Control' => 'no-store']) : $this->json($reply, 200);
  }

  /**
   * The bearer token of the request, if it has one.
   */
  protected function bearer(Request $request): ?string {
    $header = (string) $request->headers->get('Authorization');
    return preg_match('/^Bearer +(\S+)$/i', $header, $match) ? $match[1] : NULL;
  }

  /**
   * The active user the tools act as, if the administrator chose one.
   */
  protected function toolsUser(): ?AccountInterface {
    $uid = (int) $this->configFactory->get('service_widget_tools.settings')->get('tools_uid');
    $user = $uid > 0 ? $this->entityTypeManager->getStorage('user')->load($uid) : NULL;
    return $user !== NULL && $user->isActive() ? $user : NULL;
  }

  /**
   * A JSON response that no cache keeps.
   */
  protected function json(array $data, int $status): JsonResponse {
    // The options are set before the data: the constructor would encode with
    // the default ones, which throw on invalid UTF-8 in a node's text.
    $response = new JsonResponse(NULL, $status, ['Cache-Control' => 'no-store']);
    $response->setEncodingOptions(JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE);
    return $response->setData($data);
  }

  /**
   * A short plain-text refusal.
   */
  protected function plain(int $status, string $message, array $headers = []): Response {
    return new Response($message, $status, ['Content-Type' => 'text/plain; charset=utf-8', 'Cache-Control' => 'no-store'] + $headers);
  }

}
