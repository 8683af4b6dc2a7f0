<?php

namespace ServiceWidgetTools\StandIn;

use Drupal\Component\Datetime\TimeInterface;
use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Entity\EntityFieldManagerInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\File\FileUrlGeneratorInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\Core\Session\AccountSwitcherInterface;
use Drupal\Core\State\StateInterface;
use Drupal\content_moderation\ModerationInformationInterface;
use Drupal\Core\Field\FieldItemListInterface;
use Drupal\node\NodeInterface;
use Drupal\node\NodeStorageInterface;
use Drupal\service_widget_tools\Authentication\Provider\ToolsKeyAuthentication;
use Drupal\service_widget_tools\Controller\McpToolsController;
use Drupal\service_widget_tools\Http\McpResponses;
use Drupal\service_widget_tools\Mcp\McpServer;
use Drupal\service_widget_tools\Node\BodyFormat;
use Drupal\service_widget_tools\Node\NodePresenter;
use Drupal\service_widget_tools\Node\NodeRevisions;
use Drupal\service_widget_tools\Tool\NodeCreateDraftRevision;
use Drupal\service_widget_tools\Tool\NodePublish;
use Drupal\service_widget_tools\Tool\NodeSearch;
use Drupal\service_widget_tools\Tool\NodeUpdate;
use Drupal\service_widget_tools\Tool\SiteInfo;
use Drupal\service_widget_tools\Tool\ToolCollection;
use Drupal\service_widget_tools\ToolsKey;
use Psr\Log\AbstractLogger;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

/**
 * A Drupal site in memory: the module's real services over stand-ins.
 *
 * Only for the `php -S` endpoint the service's TypeScript contract and
 * connector tests call with the contract's letter node ids ("abc123",
 * "locked"), which no real Drupal node can have. The module's own tests run
 * on real Drupal core (tests/src/Kernel).
 *
 * The stand-ins keep nodes the way Drupal's SQL storage does: every revision
 * in a revision table, one default revision per node (what visitors see),
 * pending revisions beside it, loadRevision() answering isDefaultRevision()
 * by comparing with the default, and save() writing a new revision or the
 * loaded one in place. With $moderated, saves go through Content
 * Moderation's presave rule. State can be written to a JSON file, so the
 * `php -S` router keeps the site between requests.
 */
class InMemorySite {

  /**
   * The uid of the seeded tools user.
   */
  const TOOLS_UID = 2;

  public NodeStorage $nodes;
  public UserStorage $users;
  public MemoryState $state;
  public Config $settings;
  public AccountSwitcher $switcher;
  public MemoryLogger $logger;
  public ContainerBuilder $container;

  public function __construct(array $data, bool $moderated = FALSE) {
    $this->nodes = NodeStorage::fromArray($data['nodes'] ?? ['nextVid' => 100, 'nodes' => []], $moderated);
    $this->users = new UserStorage($data['users'] ?? [self::TOOLS_UID => [
      'name' => 'assistant',
      'active' => TRUE,
      'permissions' => ['edit any article content', 'administer nodes', 'use editorial transition create_new_draft', 'use editorial transition publish', 'use basic_html'],
    ]]);
    $this->state = new MemoryState($data['state'] ?? []);
    $this->settings = new Config($data['settings'] ?? ['tools_uid' => self::TOOLS_UID]);
    $this->switcher = new AccountSwitcher();
    $this->nodes->switcher = $this->switcher;
    $this->logger = new MemoryLogger();

    $container = new ContainerBuilder();
    $container->set('state', $this->state);
    $container->set('config.factory', new ConfigFactory(['service_widget_tools.settings' => $this->settings, 'system.site' => new Config(['name' => 'CMS-A stand-in'])]));
    $container->set('entity_type.manager', new EntityTypeManager(['node' => $this->nodes, 'user' => $this->users]));
    $container->set('account_switcher', $this->switcher);
    $etm = $container->get('entity_type.manager');
    $revisions = new NodeRevisions($etm, new Time(), $this->nodes->moderated ? new ModerationInformation() : NULL);
    $presenter = new NodePresenter(new FileUrlGenerator());
    // In the order the tags' priorities give in services.yml.
    $tools = new ToolCollection();
    $tools->addTool(new SiteInfo($container->get('config.factory')));
    $tools->addTool(new NodeSearch($revisions, $presenter, new EntityFieldManager()));
    $tools->addTool(new NodeCreateDraftRevision($revisions, $presenter));
    $tools->addTool(new NodeUpdate($revisions, $presenter, new BodyFormat($etm, $container->get('config.factory'))));
    $tools->addTool(new NodePublish($revisions, $presenter));
    $container->set('service_widget_tools.key', new ToolsKey($this->state));
    $container->set('service_widget_tools.authentication.key', new ToolsKeyAuthentication($container->get('service_widget_tools.key'), $container->get('config.factory'), $etm));
    $container->set('service_widget_tools.mcp_server', new McpServer($tools, $this->logger));
    $this->container = $container;
  }

  /**
   * A site seeded with the contract fixture's nodes.
   */
  public static function fromFixture(array $fixture, bool $moderated = FALSE): self {
    $site = new self([], $moderated);
    foreach ($fixture['seed'] as $node) {
      $site->nodes->seed((string) $node['nid'], $node['type'], $node['title'], $node['fields'], ['editFields' => ($node['toolsUserMayEditFields'] ?? TRUE) !== FALSE]);
    }
    return $site;
  }

  /**
   * Answers a request to /_mcp_tools as Drupal's pipeline does.
   *
   * Authentication through the module's provider, the route's methods and
   * access requirement, then the controller; a refusal is answered as
   * McpToolsRefusalSubscriber answers it (Symfony's HttpKernel, which that
   * subscriber needs, is not among the libraries the stand-ins load).
   */
  public function handle(Request $request): Response {
    $provider = $this->container->get('service_widget_tools.authentication.key');
    $account = $provider->applies($request) ? $provider->authenticate($request) : NULL;
    if ($request->headers->has('Origin')) {
      return McpResponses::plain(403, McpResponses::BROWSER);
    }
    if (!in_array($request->getMethod(), ['POST', 'GET', 'DELETE', 'HEAD'], TRUE)) {
      return McpResponses::postOnly();
    }
    if ($account === NULL) {
      return $request->attributes->get(ToolsKeyAuthentication::NO_TOOLS_USER) ? McpResponses::plain(403, McpResponses::NO_TOOLS_USER) : McpResponses::unauthorized();
    }
    // The authenticated request's current user: the stand-ins' storage and
    // validation read it from the switcher.
    $this->container->set('current_user', $account);
    $this->switcher->switchTo($account);
    return McpToolsController::create($this->container)->handle($request);
  }

  /**
   * Sets the key: stored as Drupal stores it (hashed in state).
   */
  public function setKey(string $key): void {
    $this->state->set(ToolsKey::STATE, hash('sha256', $key));
  }

  /**
   * The site's data, for the next request of the php -S router.
   */
  public function toArray(): array {
    return ['nodes' => $this->nodes->toArray(), 'users' => $this->users->data, 'state' => $this->state->data, 'settings' => $this->settings->data];
  }

}

/**
 * Drupal's node storage, in memory (SqlContentEntityStorage's revision rules).
 */
class NodeStorage implements NodeStorageInterface {

  /**
   * Per node: type, default vid, revisions (vid => values), access policy.
   */
  public array $nodes = [];
  public int $nextVid = 100;
  public bool $moderated;
  public int $requestTime = 1700000000;

  /**
   * Every save, in order: [nid, vid, new revision, default].
   */
  public array $saves = [];

  /**
   * When set, the next storage call throws it (a database failure).
   */
  public ?\Throwable $failure = NULL;

  /**
   * The account switcher, to record who the current user was at each call.
   */
  public ?AccountSwitcher $switcher = NULL;

  /**
   * The current user's id at each storage call (NULL: nobody switched to).
   */
  public array $callers = [];

  public static function fromArray(array $data, bool $moderated): self {
    $storage = new self();
    $storage->nodes = $data['nodes'];
    $storage->nextVid = $data['nextVid'];
    $storage->moderated = $moderated || !empty($data['moderated']);
    return $storage;
  }

  public function toArray(): array {
    return ['nodes' => $this->nodes, 'nextVid' => $this->nextVid, 'moderated' => $this->moderated];
  }

  /**
   * Adds a published node with one revision.
   */
  public function seed(string $nid, string $type, string $title, array $fields, array $policy = []): void {
    $vid = $this->nextVid++;
    $images = array_map(fn($m) => ['uri' => $m['url'], 'alt' => $m['alt'] ?? ''], $fields['media'] ?? []);
    $this->nodes[$nid] = [
      'type' => $type,
      'default' => $vid,
      'revisions' => [$vid => [
        'title' => $title,
        'status' => TRUE,
        'body' => ['value' => $fields['body'] ?? '', 'summary' => $fields['summary'] ?? '', 'format' => $fields['format'] ?? 'basic_html'],
        'images' => $images,
        'changed' => $this->requestTime,
        'moderation_state' => $this->moderated ? 'published' : NULL,
        'revision_log' => '',
        'revision_uid' => 1,
        'revision_timestamp' => $this->requestTime,
      ]],
      'policy' => $policy + ['view' => TRUE, 'update' => TRUE, 'editFields' => TRUE],
    ];
  }

  public function load($id) {
    $this->fail();
    $id = (string) $id;
    return isset($this->nodes[$id]) ? $this->entity($id, $this->nodes[$id]['default']) : NULL;
  }

  public function loadUnchanged($id) {
    return $this->load($id);
  }

  public function loadMultiple(?array $ids = NULL) {
    $loaded = [];
    foreach ($ids ?? array_keys($this->nodes) as $id) {
      if ($node = $this->load($id)) {
        $loaded[$node->id()] = $node;
      }
    }
    return $loaded;
  }

  public function loadRevision($revision_id) {
    $this->fail();
    foreach ($this->nodes as $nid => $node) {
      if (isset($node['revisions'][$revision_id])) {
        return $this->entity((string) $nid, (int) $revision_id);
      }
    }
    return NULL;
  }

  public function loadMultipleRevisions(array $revision_ids) {
    $loaded = [];
    foreach ($revision_ids as $vid) {
      if ($revision = $this->loadRevision($vid)) {
        $loaded[$vid] = $revision;
      }
    }
    return $loaded;
  }

  public function getLatestRevisionId($entity_id) {
    $entity_id = (string) $entity_id;
    return isset($this->nodes[$entity_id]) ? max(array_keys($this->nodes[$entity_id]['revisions'])) : NULL;
  }

  /**
   * One language here: the latest revision is the latest that affected it.
   */
  public function getLatestTranslationAffectedRevisionId($entity_id, $langcode) {
    return $langcode === 'en' ? $this->getLatestRevisionId($entity_id) : NULL;
  }

  /**
   * As ContentEntityStorageBase::createRevision(): a clone, new and default as
   * asked; status and the revision log are left as they were.
   */
  public function createRevision(Node $entity, $default = TRUE) {
    $revision = clone $entity;
    $revision->setNewRevision();
    $revision->isDefaultRevision($default);
    return $revision;
  }

  public function getQuery() {
    return new NodeQuery($this);
  }

  /**
   * Saves a revision: a new one (new vid), or the loaded one in place.
   */
  public function save(Node $node): int {
    $this->fail();
    $nid = $node->id();
    if ($this->moderated && $node->values['moderation_state'] !== NULL) {
      // Content Moderation's presave (editorial workflow): "published" is a
      // default revision state; "draft" is default only while the default
      // revision is unpublished. Every save is a new revision.
      $published = $node->values['moderation_state'] === 'published';
      $default_published = $this->nodes[$nid]['revisions'][$this->nodes[$nid]['default']]['status'];
      $node->setNewRevision(TRUE);
      $node->isDefaultRevision($published || !$default_published);
      $node->values['status'] = $published;
    }
    $node->values['changed'] = $this->requestTime;
    $vid = $node->isNewRevision() ? $this->nextVid++ : $node->getRevisionId();
    $this->nodes[$nid]['revisions'][$vid] = $node->values;
    // A revision that was the default stays it when saved in place.
    $default = $node->isDefaultRevision() || $this->nodes[$nid]['default'] === $vid;
    if ($default) {
      $this->nodes[$nid]['default'] = $vid;
    }
    $this->saves[] = [$nid, $vid, $node->isNewRevision(), $default];
    $node->saved($vid, $default);
    return 2;
  }

  /**
   * Revisions of a node, oldest first: [vid, status, title, default].
   */
  public function revisions(string $nid): array {
    $rows = [];
    foreach ($this->nodes[$nid]['revisions'] as $vid => $values) {
      $rows[] = [$vid, $values['status'] ? 'published' : 'draft', $values['title'], $vid === $this->nodes[$nid]['default']];
    }
    return $rows;
  }

  public function policy(string $nid, string $what): bool {
    return $this->nodes[$nid]['policy'][$what] ?? TRUE;
  }

  protected function entity(string $nid, int $vid): Node {
    return new Node($this, $nid, $this->nodes[$nid]['type'], $vid, $this->nodes[$nid]['revisions'][$vid], $vid === $this->nodes[$nid]['default']);
  }

  protected function fail(): void {
    $this->callers[] = $this->switcher?->current()?->id();
    if ($this->failure) {
      throw $this->failure;
    }
  }

}

/**
 * A node revision as a loaded entity.
 */
class Node implements NodeInterface {

  protected ?int $vid;
  protected int $loadedVid;
  protected bool $newRevision = FALSE;

  public function __construct(protected NodeStorage $storage, protected string $nid, protected string $type, int $vid, public array $values, protected bool $default) {
    $this->vid = $vid;
    $this->loadedVid = $vid;
  }

  public function id() {
    return $this->nid;
  }

  public function bundle() {
    return $this->type;
  }

  public function getTitle() {
    return $this->values['title'];
  }

  public function setTitle($title) {
    $this->values['title'] = $title;
    return $this;
  }

  public function isPublished() {
    return $this->values['status'];
  }

  public function setPublished() {
    $this->values['status'] = TRUE;
    return $this;
  }

  public function setUnpublished() {
    $this->values['status'] = FALSE;
    return $this;
  }

  public function getRevisionId() {
    return $this->vid;
  }

  public function isDefaultRevision($new_value = NULL) {
    $previous = $this->default;
    if ($new_value !== NULL) {
      $this->default = (bool) $new_value;
    }
    return $previous;
  }

  public function isLatestRevision() {
    return $this->loadedVid === $this->storage->getLatestRevisionId($this->nid);
  }

  /**
   * As ContentEntityBase: a new revision drops the revision id until saved;
   * taking it back restores the loaded one.
   */
  public function setNewRevision($value = TRUE) {
    if ($value && !$this->newRevision) {
      $this->vid = NULL;
    }
    elseif (!$value && $this->newRevision) {
      $this->vid = $this->loadedVid;
    }
    $this->newRevision = (bool) $value;
  }

  public function isNewRevision() {
    return $this->newRevision;
  }

  public function setRevisionLogMessage($revision_log_message) {
    $this->values['revision_log'] = $revision_log_message;
    return $this;
  }

  public function setRevisionUserId($user_id) {
    $this->values['revision_uid'] = $user_id;
    return $this;
  }

  public function setRevisionCreationTime($timestamp) {
    $this->values['revision_timestamp'] = $timestamp;
    return $this;
  }

  public function hasField($field_name) {
    return array_key_exists($field_name, $this->getFieldDefinitions());
  }

  public function get($field_name) {
    if (!$this->hasField($field_name)) {
      throw new \InvalidArgumentException("Field $field_name is unknown.");
    }
    return new FieldItemList($this, $field_name);
  }

  public function set($field_name, $value, $notify = TRUE) {
    if (!$this->hasField($field_name)) {
      throw new \InvalidArgumentException("Field $field_name is unknown.");
    }
    $this->values[$field_name] = $value;
    return $this;
  }

  public function getFieldDefinition($name) {
    return $this->getFieldDefinitions()[$name] ?? NULL;
  }

  public function language() {
    return new class() {

      public function getId() {
        return 'en';
      }

    };
  }

  public function getFieldDefinitions() {
    $definitions = ['title' => new FieldDefinition('string'), 'status' => new FieldDefinition('boolean'), 'body' => new FieldDefinition('text_with_summary'), 'field_image' => new FieldDefinition('image')];
    if ($this->storage->moderated) {
      $definitions['moderation_state'] = new FieldDefinition('string');
    }
    return $definitions;
  }

  public function access($operation, $account = NULL, $return_as_object = FALSE) {
    return $this->storage->policy($this->nid, $operation);
  }

  /**
   * Core's constraints on the fields the tools write, with core's messages:
   * the title's, the body's text format (AllowedValues: the formats the
   * current user may use), and Content Moderation's transition check as the
   * current user.
   */
  public function validate() {
    $violations = [];
    $title = (string) $this->values['title'];
    if (trim($title) === '') {
      $violations[] = new Violation('title', 'This value should not be null.');
    }
    elseif (mb_strlen($title) > 255) {
      $violations[] = new Violation('title', 'This value is too long. It should have <em class="placeholder">255</em> characters or less.');
    }
    $user = $this->storage->switcher?->current();
    $format = $this->values['body']['format'] ?? NULL;
    if ($format !== NULL && !($user && $user->hasPermission("use $format"))) {
      $violations[] = new Violation('body.0.format', 'The value you selected is not a valid choice.');
    }
    if ($this->storage->moderated) {
      $from = $this->storage->nodes[$this->nid]['revisions'][$this->loadedVid]['moderation_state'];
      $to = $this->values['moderation_state'];
      $transition = Workflow::TRANSITIONS["$from>$to"] ?? NULL;
      if ($transition === NULL || !($user && $user->hasPermission("use editorial transition $transition"))) {
        $violations[] = new Violation('moderation_state', "You do not have access to transition from <em class=\"placeholder\">$from</em> to <em class=\"placeholder\">$to</em>.");
      }
    }
    return new ViolationList($violations);
  }

  public function save() {
    return $this->storage->save($this);
  }

  /**
   * After a save, as the entity object is left by Drupal's storage.
   */
  public function saved(int $vid, bool $default): void {
    $this->vid = $vid;
    $this->loadedVid = $vid;
    $this->newRevision = FALSE;
    $this->default = $default;
  }

  /**
   * Field access as NodeAccessControlHandler::checkFieldAccess() decides it
   * for status (administer nodes), and the node's policy for the others.
   */
  public function fieldAccess(string $operation, string $field): bool {
    if ($operation !== 'edit') {
      return TRUE;
    }
    if ($field === 'status') {
      $user = $this->storage->switcher?->current();
      return $user !== NULL && $user->hasPermission('administer nodes');
    }
    return $this->storage->policy($this->nid, 'editFields');
  }

}

/**
 * A field's item list: magic properties of its first item, and access.
 */
class FieldItemList implements FieldItemListInterface, \IteratorAggregate {

  public function __construct(protected Node $node, protected string $name) {
  }

  public function access($operation = 'view', ?AccountInterface $account = NULL, $return_as_object = FALSE) {
    return $this->node->fieldAccess($operation, $this->name);
  }

  public function first() {
    return ($this->node->values[$this->name] ?? NULL) === NULL ? NULL : $this;
  }

  public function getName() {
    return $this->name;
  }

  public function getFieldDefinition() {
    return $this->node->getFieldDefinition($this->name);
  }

  public function __isset($property) {
    return $this->__get($property) !== NULL;
  }

  public function __get($property) {
    $value = $this->node->values[$this->name] ?? NULL;
    return is_array($value) ? ($value[$property] ?? NULL) : ($property === 'value' ? $value : NULL);
  }

  /**
   * As FieldItemList::__set(): an empty list gets its first item created.
   */
  public function __set($property, $value) {
    if ($this->name === 'body') {
      $this->node->values['body'] = ($this->node->values['body'] ?? NULL) ?: ['value' => '', 'summary' => '', 'format' => NULL];
      $this->node->values['body'][$property] = $value;
    }
    else {
      $this->node->values[$this->name] = $value;
    }
  }

  public function getIterator(): \Iterator {
    $items = [];
    if ($this->name === 'field_image') {
      foreach ($this->node->values['images'] as $image) {
        $items[] = (object) ['alt' => $image['alt'], 'entity' => new File($image['uri'])];
      }
    }
    return new \ArrayIterator($items);
  }

}

class FieldDefinition {

  public function __construct(protected string $type) {
  }

  public function getSetting($name) {
    return NULL;
  }

  public function getType() {
    return $this->type;
  }

}

class File {

  public function __construct(protected string $uri) {
  }

  public function getFileUri() {
    return $this->uri;
  }

}

class Violation {

  public function __construct(protected string $path, protected string $message) {
  }

  public function getPropertyPath() {
    return $this->path;
  }

  public function getMessage() {
    return $this->message;
  }

}

class ViolationList extends \ArrayIterator {

  public function getByFields(array $field_names) {
    return new static(array_values(array_filter($this->getArrayCopy(), fn(Violation $v) => in_array(explode('.', $v->getPropertyPath())[0], $field_names, TRUE))));
  }

}

/**
 * An entity query over the stand-in storage: the conditions the module uses.
 */
class NodeQuery {

  protected ?bool $accessCheck = NULL;
  protected bool $latest = FALSE;
  protected array $conditions = [];
  protected array $sorts = [];
  protected ?array $range = NULL;

  public function __construct(protected NodeStorage $storage, protected string $conjunction = 'AND') {
  }

  public function accessCheck($access_check = TRUE) {
    $this->accessCheck = $access_check;
    return $this;
  }

  public function latestRevision() {
    $this->latest = TRUE;
    return $this;
  }

  public function condition($field, $value = NULL, $operator = NULL, $langcode = NULL) {
    $this->conditions[] = [$field, $value, $operator ?? '='];
    return $this;
  }

  public function orConditionGroup() {
    return new static($this->storage, 'OR');
  }

  public function sort($field, $direction = 'ASC', $langcode = NULL) {
    $this->sorts[] = [$field, strtoupper($direction)];
    return $this;
  }

  public function range($start = NULL, $length = NULL) {
    $this->range = [$start ?? 0, $length];
    return $this;
  }

  /**
   * As Drupal's SQL query: [revision id => node id]; without accessCheck()
   * it throws, as Drupal 10+ does.
   */
  public function execute() {
    if ($this->accessCheck === NULL) {
      throw new \LogicException('Entity queries must explicitly set whether the query should be access checked or not.');
    }
    $rows = [];
    foreach ($this->storage->nodes as $nid => $node) {
      $vid = $this->latest ? max(array_keys($node['revisions'])) : $node['default'];
      // Without node grant modules, Drupal's query access check does not drop
      // published nodes; node access is checked on the loaded entities.
      $values = $node['revisions'][$vid] + ['nid' => (string) $nid];
      if ($this->matches($values)) {
        $rows[] = [$vid, (string) $nid, $values];
      }
    }
    foreach (array_reverse($this->sorts) as [$field, $direction]) {
      usort($rows, fn($a, $b) => ($direction === 'DESC' ? -1 : 1) * ($a[2][$field] <=> $b[2][$field]));
    }
    if ($this->range) {
      $rows = array_slice($rows, $this->range[0], $this->range[1]);
    }
    $result = [];
    foreach ($rows as [$vid, $nid]) {
      $result[$vid] = $nid;
    }
    return $result;
  }

  public function matches(array $values): bool {
    $outcomes = [];
    foreach ($this->conditions as [$field, $value, $operator]) {
      if ($field instanceof self) {
        $outcomes[] = $field->matches($values);
        continue;
      }
      $actual = match ($field) {
        'body.value' => $values['body']['value'] ?? '',
        'status' => $values['status'] ? 1 : 0,
        default => $values[$field] ?? NULL,
      };
      $outcomes[] = match ($operator) {
        'CONTAINS' => mb_stripos((string) $actual, (string) $value) !== FALSE,
        '=' => $actual == $value,
      };
    }
    return $this->conjunction === 'AND' ? !in_array(FALSE, $outcomes, TRUE) : in_array(TRUE, $outcomes, TRUE);
  }

}

class User implements AccountInterface {

  public function __construct(protected int $uid, public array $data) {
  }

  public function id() {
    return $this->uid;
  }

  public function isActive() {
    return $this->data['active'];
  }

  public function hasPermission($permission) {
    return in_array($permission, $this->data['permissions'], TRUE);
  }

  public function getDisplayName() {
    return $this->data['name'];
  }

}

class UserStorage {

  public function __construct(public array $data) {
  }

  public function load($id) {
    return isset($this->data[$id]) ? new User((int) $id, $this->data[$id]) : NULL;
  }

}

class EntityTypeManager implements EntityTypeManagerInterface {

  public function __construct(protected array $storages) {
  }

  public function getStorage($entity_type) {
    return $this->storages[$entity_type];
  }

}

class EntityFieldManager implements EntityFieldManagerInterface {

  public function getFieldStorageDefinitions($entity_type_id) {
    return ['title' => new FieldDefinition('string'), 'body' => new FieldDefinition('text_with_summary'), 'field_image' => new FieldDefinition('image')];
  }

}

/**
 * As FileUrlGenerator: external URLs as they are, public:// under the files
 * directory of the site.
 */
class FileUrlGenerator implements FileUrlGeneratorInterface {

  public function generateAbsoluteString(string $uri): string {
    if (preg_match('#^(https?|data):#', $uri)) {
      return $uri;
    }
    return preg_replace('#^public://#', 'https://cms-a.example.test/sites/default/files/', $uri);
  }

}

class Time implements TimeInterface {

  public function getRequestTime() {
    return 1700000000;
  }

}

class ModerationInformation implements ModerationInformationInterface {

  public function isModeratedEntity($entity) {
    return $entity instanceof NodeInterface;
  }

  public function getWorkflowForEntity($entity) {
    return new Workflow();
  }

}

/**
 * The editorial workflow of the standard profile: its states and transitions.
 */
class Workflow {

  /**
   * State => [published, default revision].
   */
  const STATES = ['draft' => [FALSE, FALSE], 'published' => [TRUE, TRUE], 'archived' => [FALSE, TRUE]];

  /**
   * "from>to" => transition id.
   */
  const TRANSITIONS = [
    'draft>draft' => 'create_new_draft',
    'published>draft' => 'create_new_draft',
    'draft>published' => 'publish',
    'published>published' => 'publish',
    'published>archived' => 'archive',
    'archived>draft' => 'archived_draft',
    'archived>published' => 'archived_published',
  ];

  public function getTypePlugin() {
    return $this;
  }

  public function getState($state_id) {
    [$published, $default] = self::STATES[$state_id];
    return new class($published, $default) {

      public function __construct(protected bool $published, protected bool $default) {
      }

      public function isPublishedState() {
        return $this->published;
      }

      public function isDefaultRevisionState() {
        return $this->default;
      }

    };
  }

}

class MemoryState implements StateInterface {

  public function __construct(public array $data) {
  }

  public function get($key, $default = NULL) {
    return $this->data[$key] ?? $default;
  }

  public function set($key, $value) {
    $this->data[$key] = $value;
  }

  public function delete($key) {
    unset($this->data[$key]);
  }

}

class Config {

  public function __construct(public array $data) {
  }

  public function get($key = '') {
    return $this->data[$key] ?? NULL;
  }

}

class ConfigFactory implements ConfigFactoryInterface {

  public function __construct(protected array $configs) {
  }

  public function get($name) {
    return $this->configs[$name] ?? new Config([]);
  }

}

/**
 * As AccountSwitcher: a stack; switching back with nothing to revert throws.
 */
class AccountSwitcher implements AccountSwitcherInterface {

  public array $stack = [];

  /**
   * The account that was current at each storage call, for the tests.
   */
  public function current(): ?AccountInterface {
    return end($this->stack) ?: NULL;
  }

  public function switchTo(AccountInterface $account) {
    $this->stack[] = $account;
    return $this;
  }

  public function switchBack() {
    if (!$this->stack) {
      throw new \RuntimeException('No more accounts to revert to.');
    }
    array_pop($this->stack);
    return $this;
  }

}

class MemoryLogger extends AbstractLogger {

  public array $records = [];

  public function log($level, $message, array $context = []): void {
    $this->records[] = [$level, strtr((string) $message, $context)];
  }

}
