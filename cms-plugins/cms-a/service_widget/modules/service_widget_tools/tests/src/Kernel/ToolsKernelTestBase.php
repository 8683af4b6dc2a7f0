<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

use Drupal\Core\Session\AccountInterface;
use Drupal\Core\Session\AnonymousUserSession;
use Drupal\field\Entity\FieldConfig;
use Drupal\field\Entity\FieldStorageConfig;
use Drupal\file\Entity\File;
use Drupal\filter\Entity\FilterFormat;
use Drupal\KernelTests\KernelTestBase;
use Drupal\node\Entity\Node;
use Drupal\node\Entity\NodeType;
use Drupal\node\NodeInterface;
use Drupal\Tests\user\Traits\UserCreationTrait;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * A site with articles, Basic HTML, a tools user and a key; requests to it.
 *
 * Requests go through Drupal's HTTP kernel: authentication providers,
 * routing, access and exception subscribers are core's own.
 */
abstract class ToolsKernelTestBase extends KernelTestBase {

  use UserCreationTrait;

  /**
   * The key the tests send.
   */
  const KEY = 'swt_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

  /**
   * {@inheritdoc}
   */
  protected static $modules = [
    'system',
    'user',
    'node',
    'field',
    'text',
    'filter',
    'file',
    'image',
    'service_widget_tools',
    'service_widget_tools_test',
  ];

  /**
   * The tools user.
   */
  protected AccountInterface $toolsUser;

  /**
   * {@inheritdoc}
   */
  protected function setUp(): void {
    parent::setUp();
    $this->installEntitySchema('user');
    $this->installEntitySchema('node');
    $this->installEntitySchema('file');
    $this->installSchema('node', ['node_access']);
    $this->installSchema('file', ['file_usage']);
    $this->installSchema('service_widget_tools', ['service_widget_tools_call']);
    $this->installConfig(['system', 'filter', 'node', 'service_widget_tools']);
    $this->config('system.site')->set('name', 'Kernel site')->save();
    $this->container->get('router.builder')->rebuild();

    FilterFormat::create(['format' => 'basic_html', 'name' => 'Basic HTML', 'weight' => 0, 'filters' => []])->save();
    FilterFormat::create(['format' => 'full_html', 'name' => 'Full HTML', 'weight' => 1, 'filters' => []])->save();
    NodeType::create(['type' => 'article', 'name' => 'Article', 'new_revision' => TRUE])->save();
    node_add_body_field(NodeType::load('article'));
    FieldStorageConfig::create(['field_name' => 'field_image', 'entity_type' => 'node', 'type' => 'image', 'cardinality' => -1])->save();
    FieldConfig::create(['field_name' => 'field_image', 'entity_type' => 'node', 'bundle' => 'article', 'label' => 'Image'])->save();

    // User 1 would bypass every access check; the tools user is user 2.
    $this->createUser([], 'admin', TRUE);
    $this->toolsUser = $this->createUser($this->toolsPermissions(), 'assistant');
    $this->config('service_widget_tools.settings')->set('tools_uid', (int) $this->toolsUser->id())->save();
    $this->container->get('state')->set('service_widget_tools.key_hash', hash('sha256', self::KEY));
  }

  /**
   * The tools user's permissions, as docs/drupal-module.md lists them.
   */
  protected function toolsPermissions(): array {
    return ['access content', 'edit any article content', 'use text format basic_html', 'administer nodes'];
  }

  /**
   * A published article.
   */
  protected function article(string $title, string $body = 'The body.', array $values = []): NodeInterface {
    $node = Node::create($values + [
      'type' => 'article',
      'title' => $title,
      'body' => $body === '' ? [] : ['value' => $body, 'format' => 'basic_html'],
      'status' => 1,
      'uid' => 1,
    ]);
    $node->save();
    return $node;
  }

  /**
   * An image file entity at a URI, for an image field.
   */
  protected function image(string $uri, string $alt): array {
    $file = File::create(['uri' => $uri, 'filename' => basename($uri), 'status' => 1]);
    $file->save();
    // With width and height given, Drupal does not open the file.
    return ['target_id' => $file->id(), 'alt' => $alt, 'width' => 10, 'height' => 10];
  }

  /**
   * A request to /_mcp_tools through Drupal's HTTP kernel.
   */
  protected function request(string $method, string $body = '', array $headers = []): Response {
    $server = [];
    foreach ($headers + ['Authorization' => 'Bearer ' . self::KEY, 'Content-Type' => 'application/json'] as $name => $value) {
      if ($value !== NULL) {
        $key = strtoupper(str_replace('-', '_', $name));
        $server[in_array($key, ['CONTENT_TYPE', 'CONTENT_LENGTH'], TRUE) ? $key : "HTTP_$key"] = $value;
      }
    }
    $request = Request::create('/_mcp_tools', $method, [], [], [], $server, $body);
    // Every request starts anonymous, as a new PHP request does.
    $this->container->get('current_user')->setAccount(new AnonymousUserSession());
    $response = $this->container->get('http_kernel')->handle($request);
    $this->container->get('http_kernel')->terminate($request, $response);
    return $response;
  }

  /**
   * POSTs a JSON-RPC body.
   */
  protected function post(string $body, array $headers = []): Response {
    return $this->request('POST', $body, $headers);
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

  /**
   * The node's revisions, oldest first: [vid, status, title, default].
   */
  protected function revisions(int|string $nid): array {
    $storage = $this->container->get('entity_type.manager')->getStorage('node');
    $storage->resetCache();
    $default = (int) $storage->load($nid)->getRevisionId();
    $vids = array_keys($storage->getQuery()->accessCheck(FALSE)->allRevisions()->condition('nid', $nid)->sort('vid')->execute());
    return array_map(function ($vid) use ($storage, $default) {
      $revision = $storage->loadRevision($vid);
      return [(int) $vid, $revision->isPublished() ? 'published' : 'draft', $revision->getTitle(), (int) $vid === $default];
    }, $vids);
  }

  /**
   * What the site logged.
   */
  protected function logged(): array {
    return $this->container->get('service_widget_tools_test.log')->records;
  }

}
