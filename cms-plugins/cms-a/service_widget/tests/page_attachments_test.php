<?php

/**
 * @file
 * Behavioural test of service_widget_page_attachments() and the module's other
 * hooks.
 *
 * Plain PHP, no Drupal: the Drupal services the module calls are replaced by
 * small stand-ins below, then the real service_widget.module and
 * service_widget.install are required and their hooks called. Run: php
 * tests/page_attachments_test.php (exit code 0 when every case passes). The
 * Cache and CacheableMetadata stand-ins follow Drupal core's implementations.
 */

namespace Drupal\Core\Cache {

  interface CacheableDependencyInterface {

    public function getCacheContexts();

    public function getCacheTags();

    public function getCacheMaxAge();

  }

  class Cache {

    const PERMANENT = -1;

    public static function mergeContexts(array ...$contexts) {
      $merged = array_values(array_unique(array_merge(...$contexts)));
      sort($merged);
      return $merged;
    }

    public static function mergeTags(array ...$tags) {
      return array_values(array_unique(array_merge(...$tags)));
    }

    public static function mergeMaxAges(...$max_ages) {
      $finite = array_filter($max_ages, fn($age) => $age !== self::PERMANENT);
      return $finite ? min($finite) : self::PERMANENT;
    }

  }

  class CacheableMetadata implements CacheableDependencyInterface {

    protected $cacheContexts = [];

    protected $cacheTags = [];

    protected $cacheMaxAge = Cache::PERMANENT;

    public function getCacheContexts() {
      return $this->cacheContexts;
    }

    public function getCacheTags() {
      return $this->cacheTags;
    }

    public function getCacheMaxAge() {
      return $this->cacheMaxAge;
    }

    public function merge(CacheableMetadata $other) {
      $result = clone $this;
      $result->cacheContexts = Cache::mergeContexts($this->cacheContexts, $other->cacheContexts);
      $result->cacheTags = Cache::mergeTags($this->cacheTags, $other->cacheTags);
      $result->cacheMaxAge = Cache::mergeMaxAges($this->cacheMaxAge, $other->cacheMaxAge);
      return $result;
    }

    public function applyTo(array &$build) {
      $build['#cache']['contexts'] = $this->cacheContexts;
      $build['#cache']['tags'] = $this->cacheTags;
      $build['#cache']['max-age'] = $this->cacheMaxAge;
    }

    public static function createFromRenderArray(array $build) {
      $meta = new static();
      $meta->cacheContexts = $build['#cache']['contexts'] ?? [];
      $meta->cacheTags = $build['#cache']['tags'] ?? [];
      $meta->cacheMaxAge = $build['#cache']['max-age'] ?? Cache::PERMANENT;
      return $meta;
    }

    public static function createFromObject($object) {
      $meta = new static();
      if ($object instanceof CacheableDependencyInterface) {
        $meta->cacheContexts = $object->getCacheContexts();
        $meta->cacheTags = $object->getCacheTags();
        $meta->cacheMaxAge = $object->getCacheMaxAge();
      }
      else {
        // Drupal treats objects without cacheability as uncacheable.
        $meta->cacheMaxAge = 0;
      }
      return $meta;
    }

  }

}

namespace Drupal\node {

  interface NodeInterface {
  }

}

namespace ServiceWidgetTest {

  use Drupal\Core\Cache\CacheableDependencyInterface;
  use Drupal\node\NodeInterface;

  class Account {

    public function __construct(public int $uid, public array $permissions = []) {
    }

    public function isAnonymous() {
      return $this->uid === 0;
    }

    public function id() {
      return $this->uid;
    }

    public function hasPermission($permission) {
      return in_array($permission, $this->permissions, TRUE);
    }

  }

  class RouteMatch {

    public function __construct(public ?string $name, public array $parameters = []) {
    }

    public function getRouteName() {
      return $this->name;
    }

    public function getParameter($name) {
      return $this->parameters[$name] ?? NULL;
    }

  }

  class PathMatcher {

    public function __construct(public bool $front) {
    }

    public function isFrontPage() {
      return $this->front;
    }

  }

  class AccessResult implements CacheableDependencyInterface {

    public function __construct(public bool $allowed, public array $contexts = [], public array $tags = [], public int $maxAge = -1) {
    }

    public function isAllowed() {
      return $this->allowed;
    }

    public function getCacheContexts() {
      return $this->contexts;
    }

    public function getCacheTags() {
      return $this->tags;
    }

    public function getCacheMaxAge() {
      return $this->maxAge;
    }

  }

  class Node implements NodeInterface {

    /** @var array Each access() call's arguments. */
    public array $accessCalls = [];

    public function __construct(public int $nid, public AccessResult $update) {
    }

    public function id() {
      return (string) $this->nid;
    }

    public function access($operation, $account = NULL, $return_as_object = FALSE) {
      $this->accessCalls[] = [$operation, $account, $return_as_object];
      $result = $operation === 'update' ? $this->update : new AccessResult(FALSE);
      return $return_as_object ? $result : $result->isAllowed();
    }

  }

  /**
   * Immutable config (\Drupal::config()) and editable config (getEditable()) in
   * one.
   */
  class Config {

    public bool $saved = FALSE;

    public function __construct(public array $data) {
    }

    public function get($key = '') {
      return $key === '' ? $this->data : ($this->data[$key] ?? NULL);
    }

    public function clear($key) {
      unset($this->data[$key]);
      return $this;
    }

    public function save() {
      $this->saved = TRUE;
      return $this;
    }

  }

  class ConfigFactory {

    public function __construct(public array $configs) {
    }

    public function getEditable($name) {
      if (!isset($this->configs[$name])) {
        throw new \LogicException("unexpected config $name");
      }
      return $this->configs[$name];
    }

  }

  class State {

    public function __construct(public array $values = []) {
    }

    public function get($key, $default = NULL) {
      return array_key_exists($key, $this->values) ? $this->values[$key] : $default;
    }

    public function set($key, $value) {
      $this->values[$key] = $value;
    }

    public function delete($key) {
      unset($this->values[$key]);
    }

  }

}

namespace {

  use ServiceWidgetTest\AccessResult;
  use ServiceWidgetTest\Account;
  use ServiceWidgetTest\Config;
  use ServiceWidgetTest\ConfigFactory;
  use ServiceWidgetTest\Node;
  use ServiceWidgetTest\PathMatcher;
  use ServiceWidgetTest\RouteMatch;
  use ServiceWidgetTest\State;

  /**
   * The static service container, as far as the module uses it.
   */
  class Drupal {

    public static $currentUser;

    public static $routeMatch;

    public static $services = [];

    public static $configs = [];

    public static $state;

    public static function currentUser() {
      return self::$currentUser;
    }

    public static function routeMatch() {
      return self::$routeMatch;
    }

    public static function service($id) {
      if (!isset(self::$services[$id])) {
        throw new \LogicException("unexpected service $id");
      }
      return self::$services[$id];
    }

    public static function config($name) {
      if (!isset(self::$configs[$name])) {
        throw new \LogicException("unexpected config $name");
      }
      return self::$configs[$name];
    }

    public static function configFactory() {
      return new ConfigFactory(self::$configs);
    }

    public static function state() {
      return self::$state;
    }

  }

  function t($string, array $args = [], array $options = []) {
    return strtr($string, $args);
  }

  // Any notice or warning (an undefined index, say) fails the case it happens
  // in.
  set_error_handler(function ($severity, $message, $file, $line) {
    throw new \ErrorException($message, 0, $severity, $file, $line);
  });

  require __DIR__ . '/../service_widget.module';
  require __DIR__ . '/../service_widget.install';

  const PERMISSION = 'use service widget';
  const KEY = 'service_widget.api_key';

  /**
   * Sets up one request: user, route, front page, settings and state.
   */
  function given(Account $account, RouteMatch $route, bool $front = FALSE, ?array $settings = NULL, ?array $state = NULL) {
    Drupal::$currentUser = $account;
    Drupal::$routeMatch = $route;
    Drupal::$services = ['path.matcher' => new PathMatcher($front)];
    Drupal::$configs = ['service_widget.settings' => new Config($settings ?? ['service_url' => 'https://service.example/', 'instance_id' => 'site-1'])];
    Drupal::$state = new State($state ?? [KEY => 'widget-key-from-state']);
  }

  function editor() {
    return new Account(7, [PERMISSION, 'access content']);
  }

  function attach(array $attachments = []) {
    service_widget_page_attachments($attachments);
    return $attachments;
  }

  $passed = 0;
  $failed = 0;

  function check($condition, string $message) {
    if (!$condition) {
      throw new \RuntimeException($message);
    }
  }

  function same($actual, $expected, string $what) {
    check($actual === $expected, $what . ': expected ' . var_export($expected, TRUE) . ', got ' . var_export($actual, TRUE));
  }

  function has_all(array $haystack, array $needles, string $what) {
    $missing = array_values(array_diff($needles, $haystack));
    check(!$missing, "$what lacks " . implode(', ', $missing) . ' (has ' . implode(', ', $haystack) . ')');
  }

  function not_attached(array $attachments) {
    check(!isset($attachments['#attached']['drupalSettings']['serviceWidget']), 'drupalSettings.serviceWidget was set: ' . json_encode($attachments['#attached'] ?? NULL));
    check(!in_array('service_widget/bundle', $attachments['#attached']['library'] ?? [], TRUE), 'the bundle library was attached');
  }

  function base_cacheability(array $attachments) {
    has_all($attachments['#cache']['contexts'] ?? [], ['user.roles:authenticated', 'user.permissions', 'route', 'url.path.is_front'], 'cache contexts');
    has_all($attachments['#cache']['tags'] ?? [], ['config:service_widget.settings'], 'cache tags');
  }

  function test(string $name, callable $case) {
    global $passed, $failed;
    try {
      $case();
      $passed++;
      echo "ok - $name\n";
    }
    catch (\Throwable $e) {
      $failed++;
      // Report the line in the case that failed, not the line in the helper
      // that threw.
      $line = $e->getLine();
      foreach ($e->getTrace() as $i => $frame) {
        if ($i > 0 && str_starts_with($frame['function'], '{closure') && isset($e->getTrace()[$i - 1]['line'])) {
          $line = $e->getTrace()[$i - 1]['line'];
          break;
        }
      }
      echo "FAIL - $name: " . $e->getMessage() . " (line $line)\n";
    }
  }

  test('anonymous: nothing, even when the anonymous role holds the permission', function () {
    $node = new Node(42, new AccessResult(TRUE));
    given(new Account(0, [PERMISSION]), new RouteMatch('entity.node.canonical', ['node' => $node]), TRUE);
    $a = attach();
    not_attached($a);
    base_cacheability($a);
    same($node->accessCalls, [], 'node access calls');
  });

  test('authenticated without "use service widget": nothing, on a node it could edit', function () {
    $node = new Node(42, new AccessResult(TRUE));
    given(new Account(7, ['access content', 'administer service widget']), new RouteMatch('entity.node.edit_form', ['node' => $node]), TRUE);
    $a = attach();
    not_attached($a);
    base_cacheability($a);
  });

  test('with the permission on an unrelated route: nothing', function () {
    given(editor(), new RouteMatch('system.admin_content'), FALSE);
    $a = attach();
    not_attached($a);
    base_cacheability($a);
  });

  test('with the permission on node view, update access denied: nothing, access cacheability kept', function () {
    $account = editor();
    $node = new Node(42, new AccessResult(FALSE, ['user.node_grants:update'], ['node:42'], 300));
    given($account, new RouteMatch('entity.node.canonical', ['node' => $node]));
    $a = attach();
    not_attached($a);
    base_cacheability($a);
    same(count($node->accessCalls), 1, 'node access calls');
    same($node->accessCalls[0][0], 'update', 'access operation');
    check($node->accessCalls[0][1] === $account, 'access was not checked for the current user');
    same($node->accessCalls[0][2], TRUE, 'access $return_as_object');
    has_all($a['#cache']['contexts'], ['user.node_grants:update'], 'cache contexts');
    has_all($a['#cache']['tags'], ['node:42'], 'cache tags');
    same($a['#cache']['max-age'], 300, 'max-age');
  });

  test('allowed on node view: settings from config, key from state, access cacheability merged', function () {
    $account = editor();
    $node = new Node(42, new AccessResult(TRUE, ['user'], ['node:42'], 600));
    // A stale api_key left in config (before update 10001) must not be what the
    // page gets.
    given($account, new RouteMatch('entity.node.canonical', ['node' => $node]), FALSE,
      ['service_url' => 'https://service.example/', 'instance_id' => 'site-1', 'api_key' => 'stale-config-key']);
    $a = attach(['#attached' => ['library' => ['other/lib']], '#cache' => ['contexts' => ['theme'], 'tags' => ['other:tag']]]);
    same($a['#attached']['drupalSettings']['serviceWidget'] ?? NULL, [
      'serviceUrl' => 'https://service.example',
      'apiKey' => 'widget-key-from-state',
      'instanceId' => 'site-1',
      'agentSlug' => 'cms-a-content-editor',
      'itemId' => '42',
    ], 'drupalSettings.serviceWidget');
    same($a['#attached']['library'], ['other/lib', 'service_widget/bundle'], 'libraries');
    base_cacheability($a);
    has_all($a['#cache']['contexts'], ['user', 'theme'], 'cache contexts');
    has_all($a['#cache']['tags'], ['node:42', 'other:tag'], 'cache tags');
    same($a['#cache']['max-age'], 600, 'max-age');
    same(array_map(fn($call) => [$call[0], $call[2]], $node->accessCalls), [['update', TRUE]], 'node access calls');
  });

  test('allowed on node edit: attached with the node id', function () {
    $node = new Node(5, new AccessResult(TRUE, ['user.node_grants:update'], ['node:5']));
    given(editor(), new RouteMatch('entity.node.edit_form', ['node' => $node]));
    $a = attach();
    same($a['#attached']['drupalSettings']['serviceWidget']['itemId'] ?? NULL, '5', 'itemId');
    has_all($a['#cache']['contexts'], ['user.node_grants:update'], 'cache contexts');
    same($a['#cache']['max-age'], -1, 'max-age');
  });

  test('front page without a node: attached with an empty itemId', function () {
    given(editor(), new RouteMatch('view.frontpage.page_1'), TRUE);
    $a = attach();
    same($a['#attached']['drupalSettings']['serviceWidget']['itemId'] ?? NULL, '', 'itemId');
    same($a['#attached']['drupalSettings']['serviceWidget']['apiKey'] ?? NULL, 'widget-key-from-state', 'apiKey');
    same($a['#attached']['library'] ?? [], ['service_widget/bundle'], 'libraries');
    base_cacheability($a);
  });

  test('front page that is a node the user may not update: nothing', function () {
    $node = new Node(1, new AccessResult(FALSE, ['user'], ['node:1']));
    given(editor(), new RouteMatch('entity.node.canonical', ['node' => $node]), TRUE);
    $a = attach();
    not_attached($a);
    has_all($a['#cache']['tags'], ['node:1'], 'cache tags');
  });

  test('node route whose parameter is not a node: nothing', function () {
    given(editor(), new RouteMatch('entity.node.canonical', ['node' => '42']));
    not_attached(attach());
  });

  test('settings incomplete: nothing', function () {
    $route = new RouteMatch('view.frontpage.page_1');
    $complete = ['service_url' => 'https://service.example', 'instance_id' => 'site-1'];
    // No key in state, even with a (legacy) key in config.
    given(editor(), $route, TRUE, $complete + ['api_key' => 'stale-config-key'], []);
    not_attached(attach());
    given(editor(), $route, TRUE, $complete, [KEY => '']);
    not_attached(attach());
    given(editor(), $route, TRUE, ['service_url' => '', 'instance_id' => 'site-1']);
    not_attached(attach());
    given(editor(), $route, TRUE, ['service_url' => 'https://service.example', 'instance_id' => '']);
    $a = attach();
    not_attached($a);
    base_cacheability($a);
  });

  test('hook_library_info_alter: external bundle from the service URL, other extensions untouched', function () {
    given(editor(), new RouteMatch(NULL));
    $libraries = ['bundle' => ['version' => '0.2.0', 'js' => []]];
    service_widget_library_info_alter($libraries, 'service_widget');
    same(array_keys($libraries['bundle']['js']), ['https://service.example/api/cms-a-widget/bundle.js?v=0.2.0'], 'bundle js, versioned');
    same($libraries['bundle']['js']['https://service.example/api/cms-a-widget/bundle.js?v=0.2.0']['type'], 'external', 'type');
    $other = ['bundle' => ['js' => []]];
    service_widget_library_info_alter($other, 'node');
    same($other, ['bundle' => ['js' => []]], 'other extension');
  });

  test('update 10001 moves the key from config to state', function () {
    given(editor(), new RouteMatch(NULL), FALSE, ['service_url' => 'https://s', 'api_key' => 'old-key', 'instance_id' => 'i'], []);
    $message = (string) service_widget_update_10001();
    $config = Drupal::$configs['service_widget.settings'];
    same(Drupal::$state->get(KEY), 'old-key', 'state key');
    same($config->get(), ['service_url' => 'https://s', 'instance_id' => 'i'], 'config after update');
    same($config->saved, TRUE, 'config saved');
    check(str_contains($message, 'Moved'), "message: $message");
  });

  test('update 10001 keeps a key already in state and still clears config', function () {
    given(editor(), new RouteMatch(NULL), FALSE, ['service_url' => 'https://s', 'api_key' => 'old-key', 'instance_id' => 'i'], [KEY => 'new-key']);
    service_widget_update_10001();
    same(Drupal::$state->get(KEY), 'new-key', 'state key');
    same(Drupal::$configs['service_widget.settings']->get('api_key'), NULL, 'config api_key');
  });

  test('update 10001 with no key in config leaves state alone', function () {
    given(editor(), new RouteMatch(NULL), FALSE, ['service_url' => 'https://s', 'api_key' => '', 'instance_id' => 'i'], []);
    service_widget_update_10001();
    same(Drupal::$state->values, [], 'state');
    same(Drupal::$configs['service_widget.settings']->get(), ['service_url' => 'https://s', 'instance_id' => 'i'], 'config after update');
  });

  test('uninstall deletes the key from state', function () {
    given(editor(), new RouteMatch(NULL), FALSE, NULL, [KEY => 'k', 'other' => 1]);
    service_widget_uninstall();
    same(Drupal::$state->values, ['other' => 1], 'state');
  });

  echo "$passed passed, $failed failed\n";
  exit($failed === 0 && $passed > 0 ? 0 : 1);

}
