<?php

namespace Drupal\service_widget_tools\Mcp;

use Drupal\Component\Datetime\TimeInterface;
use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Entity\EntityFieldManagerInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\File\FileUrlGeneratorInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\content_moderation\ModerationInformationInterface;
use Drupal\node\NodeInterface;

/**
 * The five tools of _mcp_tools, on Drupal's nodes and their revisions.
 *
 * A draft is an unpublished latest revision. Beside a published node it is a
 * pending (non-default) revision, so visitors keep seeing the published one
 * until node_publish saves the draft's content as a new default revision.
 * With Content Moderation on the node's bundle, the moderation states
 * "draft" and "published" are set instead and Content Moderation decides the
 * default revision, as it does for the node form.
 *
 * Every tool acts as the given account: node access decides what is read and
 * updated, field access which fields are written.
 */
class NodeTools {

  /**
   * The fields node_update writes.
   */
  const WRITABLE = ['title', 'body', 'summary'];

  /**
   * The most nodes node_search answers.
   */
  const MAX_LIMIT = 50;

  /**
   * The entity type manager.
   *
   * @var \Drupal\Core\Entity\EntityTypeManagerInterface
   */
  protected $entityTypeManager;

  /**
   * The entity field manager.
   *
   * @var \Drupal\Core\Entity\EntityFieldManagerInterface
   */
  protected $entityFieldManager;

  /**
   * The file URL generator.
   *
   * @var \Drupal\Core\File\FileUrlGeneratorInterface
   */
  protected $fileUrlGenerator;

  /**
   * The time service.
   *
   * @var \Drupal\Component\Datetime\TimeInterface
   */
  protected $time;

  /**
   * The config factory.
   *
   * @var \Drupal\Core\Config\ConfigFactoryInterface
   */
  protected $configFactory;

  /**
   * Content Moderation's information service, when that module is on.
   *
   * @var \Drupal\content_moderation\ModerationInformationInterface|null
   */
  protected $moderationInformation;

  /**
   * Constructs the tools.
   *
   * @param \Drupal\Core\Entity\EntityTypeManagerInterface $entity_type_manager
   *   The entity type manager.
   * @param \Drupal\Core\Entity\EntityFieldManagerInterface $entity_field_manager
   *   The entity field manager.
   * @param \Drupal\Core\File\FileUrlGeneratorInterface $file_url_generator
   *   The file URL generator.
   * @param \Drupal\Component\Datetime\TimeInterface $time
   *   The time service.
   * @param \Drupal\Core\Config\ConfigFactoryInterface $config_factory
   *   The config factory.
   * @param \Drupal\content_moderation\ModerationInformationInterface|null $moderation_information
   *   Content Moderation's information service, NULL without that module.
   */
  public function __construct(EntityTypeManagerInterface $entity_type_manager, EntityFieldManagerInterface $entity_field_manager, FileUrlGeneratorInterface $file_url_generator, TimeInterface $time, ConfigFactoryInterface $config_factory, ?ModerationInformationInterface $moderation_information = NULL) {
    $this->entityTypeManager = $entity_type_manager;
    $this->entityFieldManager = $entity_field_manager;
    $this->fileUrlGenerator = $file_url_generator;
    $this->time = $time;
    $this->configFactory = $config_factory;
    $this->moderationInformation = $moderation_information;
  }

  /**
   * The tools as tools/list describes them.
   *
   * @return array
   *   Each tool's name, description and input schema (JSON Schema).
   */
  public function definitions(): array {
    $nid = ['type' => 'string', 'description' => 'The node id.'];
    $tool = fn(string $name, string $description, array $properties, array $required = []) => [
      'name' => $name,
      'description' => $description,
      'inputSchema' => ['type' => 'object', 'properties' => $properties ?: new \stdClass()] + ($required ? ['required' => $required] : []),
    ];
    return [
      $tool('site_info', 'The site name and the Drupal version.', []),
      $tool('node_search', 'Finds nodes by id or by text in the title or body. Without editContext each node is its published (default) revision; with editContext it is the latest revision, the draft when there is one.', [
        'nid' => $nid,
        'text' => ['type' => 'string', 'description' => 'Words to find in the title or body.'],
        'status' => ['type' => 'string', 'enum' => ['published', 'draft', 'any'], 'description' => 'Only nodes in this state (default any).'],
        'limit' => ['type' => 'integer', 'minimum' => 1, 'maximum' => self::MAX_LIMIT, 'description' => 'At most this many nodes (default 10).'],
        'editContext' => ['type' => 'boolean', 'description' => 'Read the latest revision, for editing.'],
      ]),
      $tool('node_create_draft_revision', 'Creates a draft revision copied from the latest revision. The published revision stays live.', [
        'nid' => $nid,
        'message' => ['type' => 'string', 'description' => 'The revision log message.'],
      ], ['nid']),
      $tool('node_update', 'Writes fields to the node\'s draft revision (create one first). Fields: title, body, summary.', [
        'nid' => $nid,
        'fields' => [
          'type' => 'object',
          'properties' => [
            'title' => ['type' => 'string'],
            'body' => ['type' => 'string'],
            'summary' => ['type' => 'string'],
          ],
          'additionalProperties' => FALSE,
        ],
      ], ['nid', 'fields']),
      $tool('node_publish', 'Publishes the node\'s draft revision: it becomes the revision visitors see.', ['nid' => $nid], ['nid']),
    ];
  }

  /**
   * Whether a tool of this name exists.
   */
  public function has(string $name): bool {
    return in_array($name, array_column($this->definitions(), 'name'), TRUE);
  }

  /**
   * Runs a tool as the given account.
   *
   * @param string $name
   *   The tool's name.
   * @param array $arguments
   *   The tool's arguments.
   * @param \Drupal\Core\Session\AccountInterface $account
   *   The account the tools act as (also the current user while they run).
   *
   * @return array
   *   The tool's result.
   *
   * @throws \Drupal\service_widget_tools\Mcp\ToolError
   *   When the tool refuses: bad arguments, a missing node, no draft, access.
   */
  public function call(string $name, array $arguments, AccountInterface $account): array {
    switch ($name) {
      case 'site_info':
        return [
          'name' => (string) $this->configFactory->get('system.site')->get('name'),
          'version' => \Drupal::VERSION,
        ];

      case 'node_search':
        return $this->search($arguments, $account);

      case 'node_create_draft_revision':
        return $this->createDraft($arguments, $account);

      case 'node_update':
        return $this->update($arguments, $account);

      case 'node_publish':
        return $this->publish($arguments, $account);
    }
    throw new ToolError("Unknown tool: $name");
  }

  /**
   * The node_search tool.
   */
  protected function search(array $arguments, AccountInterface $account): array {
    $nid = $this->optionalString($arguments, 'nid');
    $text = $this->optionalString($arguments, 'text');
    $status = $this->optionalString($arguments, 'status') ?? 'any';
    if (!in_array($status, ['published', 'draft', 'any'], TRUE)) {
      throw new ToolError('status must be one of: published, draft, any.');
    }
    $limit = $arguments['limit'] ?? 10;
    if (!is_int($limit) || $limit < 1 || $limit > self::MAX_LIMIT) {
      throw new ToolError('limit must be an integer from 1 to ' . self::MAX_LIMIT . '.');
    }
    $edit_context = ($arguments['editContext'] ?? FALSE) === TRUE;
    $storage = $this->storage();

    if ($nid !== NULL) {
      // By id, through load(): it drops ids that cannot be node ids.
      $default = $this->validNid($nid) ? $storage->load($nid) : NULL;
      $revision = $default === NULL ? NULL : ($edit_context ? $this->latest($default) : $default);
      if ($revision === NULL || !$default->access($edit_context ? 'update' : 'view', $account)) {
        return ['nodes' => []];
      }
      $found = ($status === 'any' || $this->statusOf($revision) === $status) && ($text === NULL || $text === '' || $this->contains($revision, $text));
      return ['nodes' => $found ? [$this->present($default, $revision, $account)] : []];
    }

    // Node access is checked per node (update access, for an edit context, is
    // no query condition), so a page of ids may lose some: read further pages
    // until the answer is full, at most five.
    $nodes = [];
    for ($page = 0; $page < 5 && count($nodes) < $limit; $page++) {
      $query = $storage->getQuery()->accessCheck(TRUE)->sort('changed', 'DESC')->sort('nid', 'DESC')->range($page * $limit, $limit);
      if ($edit_context) {
        $query->latestRevision();
      }
      if ($text !== NULL && $text !== '') {
        $matches = $query->orConditionGroup()->condition('title', $text, 'CONTAINS');
        if ($this->hasBody()) {
          $matches->condition('body.value', $text, 'CONTAINS');
        }
        $query->condition($matches);
      }
      if ($status !== 'any') {
        $query->condition('status', $status === 'published' ? 1 : 0);
      }
      $ids = $query->execute();
      // A latest-revision query answers revision id => node id.
      $revisions = $edit_context ? $storage->loadMultipleRevisions(array_keys($ids)) : $storage->loadMultiple(array_values($ids));
      $defaults = $edit_context ? $storage->loadMultiple(array_values($ids)) : $revisions;
      foreach ($revisions as $revision) {
        $default = $defaults[$revision->id()] ?? NULL;
        if ($default !== NULL && count($nodes) < $limit && $default->access($edit_context ? 'update' : 'view', $account)) {
          $nodes[] = $this->present($default, $revision, $account);
        }
      }
      if (count($ids) < $limit) {
        break;
      }
    }
    return ['nodes' => $nodes];
  }

  /**
   * The node_create_draft_revision tool.
   */
  protected function createDraft(array $arguments, AccountInterface $account): array {
    $default = $this->loadForUpdate($arguments, $account);
    $message = $this->optionalString($arguments, 'message');
    $draft = $this->storage()->createRevision($this->latest($default), FALSE);
    $this->stamp($draft, $account, $message ?: 'Draft revision by the Service content editor.');
    if ($this->isModerated($draft)) {
      $draft->set('moderation_state', 'draft');
    }
    else {
      $draft->setUnpublished();
    }
    $this->assertValid($draft, ['moderation_state']);
    $draft->save();
    return $this->present($this->storage()->loadUnchanged($default->id()), $draft, $account);
  }

  /**
   * The node_update tool.
   */
  protected function update(array $arguments, AccountInterface $account): array {
    if (!array_key_exists('fields', $arguments)) {
      throw new ToolError('fields is required: the title and field values to write (' . implode(', ', self::WRITABLE) . ').');
    }
    $fields = $arguments['fields'];
    if (!is_array($fields) || $fields === [] || array_is_list($fields)) {
      throw new ToolError('fields must be an object naming at least one of: ' . implode(', ', self::WRITABLE) . '.');
    }
    $unknown = array_diff(array_keys($fields), self::WRITABLE);
    if ($unknown) {
      throw new ToolError('These fields cannot be written through _mcp_tools: ' . implode(', ', $unknown) . '. Writable: ' . implode(', ', self::WRITABLE) . '.');
    }
    foreach ($fields as $field => $value) {
      if (!is_string($value)) {
        throw new ToolError("fields.$field must be a string.");
      }
    }
    $default = $this->loadForUpdate($arguments, $account);
    $draft = $this->draftForUpdate($default, $account, "Node {$default->id()} has no draft revision: its latest revision is not a draft. Create one with node_create_draft_revision first.");
    foreach ($fields as $field => $value) {
      $field_name = $field === 'title' ? 'title' : 'body';
      if (!$draft->hasField($field_name)) {
        throw new ToolError("Node {$default->id()} ({$draft->bundle()}) has no $field_name field.");
      }
      if ($field === 'summary' && $draft->getFieldDefinition('body')->getType() !== 'text_with_summary') {
        throw new ToolError("The body field of node {$default->id()} has no summary.");
      }
      if (!$draft->get($field_name)->access('edit', $account)) {
        throw new ToolError("Access denied: the tools user may not edit the $field_name field of node {$default->id()}.");
      }
    }
    foreach ($fields as $field => $value) {
      if ($field === 'title') {
        $draft->setTitle($value);
      }
      else {
        // Setting a property of an empty field list creates its first item.
        $draft->get('body')->{$field === 'body' ? 'value' : 'summary'} = $value;
      }
    }
    $this->assertValid($draft, array_unique(array_map(fn($field) => $field === 'title' ? 'title' : 'body', array_keys($fields))));
    // Saved in place. (Content Moderation makes every save a new revision; the
    // result names the revision written either way.)
    $draft->setNewRevision(FALSE);
    if ($this->isModerated($draft)) {
      $this->stamp($draft, $account, 'Edited by the Service content editor.');
    }
    else {
      $draft->setRevisionUserId($account->id());
    }
    $draft->save();
    return $this->present($this->storage()->loadUnchanged($default->id()), $draft, $account);
  }

  /**
   * The node_publish tool.
   */
  protected function publish(array $arguments, AccountInterface $account): array {
    $default = $this->loadForUpdate($arguments, $account);
    $draft = $this->draftForUpdate($default, $account, "Node {$default->id()} has no draft revision to publish: its latest revision is not a draft.");
    $this->stamp($draft, $account, 'Published by the Service content editor.');
    if ($this->isModerated($draft)) {
      // Content Moderation checks the transition as the tools user (see
      // assertValid below) and saves a new default revision for this state.
      $draft->set('moderation_state', 'published');
    }
    else {
      // Publishing is changing the status field: Drupal lets only users with
      // "administer nodes" (or, from 11.3, "administer node published status")
      // edit it.
      if (!$draft->get('status')->access('edit', $account)) {
        throw new ToolError("Access denied: the tools user may not publish node {$default->id()} (Drupal's status field).");
      }
      // As the node form's revert does: the draft's content is saved as a new
      // revision that becomes the default one.
      $draft->setNewRevision(TRUE);
      $draft->isDefaultRevision(TRUE);
      $draft->setPublished();
    }
    $this->assertValid($draft, ['moderation_state', 'status']);
    $draft->save();
    $published = $this->storage()->loadUnchanged($default->id());
    return $this->present($published, $published, $account);
  }

  /**
   * The node storage.
   *
   * @return \Drupal\node\NodeStorageInterface
   *   The storage.
   */
  protected function storage() {
    return $this->entityTypeManager->getStorage('node');
  }

  /**
   * Loads the node named by the nid argument, for an update by the account.
   */
  protected function loadForUpdate(array $arguments, AccountInterface $account): NodeInterface {
    $nid = $this->optionalString($arguments, 'nid');
    if ($nid === NULL || $nid === '') {
      throw new ToolError('nid is required: the id of the node.');
    }
    $node = $this->validNid($nid) ? $this->storage()->load($nid) : NULL;
    if (!$node instanceof NodeInterface) {
      throw new ToolError("Node $nid not found.");
    }
    if (!$node->access('update', $account)) {
      throw new ToolError("Access denied: the tools user may not update node $nid.");
    }
    return $node;
  }

  /**
   * The node's draft, which the account may update.
   *
   * @param \Drupal\node\NodeInterface $default
   *   The node's default revision.
   * @param \Drupal\Core\Session\AccountInterface $account
   *   The account the tools act as.
   * @param string $no_draft
   *   The refusal when the latest revision is not a draft.
   *
   * @throws \Drupal\service_widget_tools\Mcp\ToolError
   *   When the latest revision is not a draft, or the account may not update
   *   it.
   */
  protected function draftForUpdate(NodeInterface $default, AccountInterface $account, string $no_draft): NodeInterface {
    $draft = $this->latest($default);
    if (!$this->isDraft($draft)) {
      throw new ToolError($no_draft);
    }
    if (!$draft->access('update', $account)) {
      throw new ToolError("Access denied: the tools user may not update the draft of node {$default->id()}.");
    }
    return $draft;
  }

  /**
   * The latest revision of a node's default translation, given its default
   * revision (another language's pending revision is not this one's draft).
   */
  protected function latest(NodeInterface $default): NodeInterface {
    if ($default->isLatestRevision()) {
      return $default;
    }
    $storage = $this->storage();
    $vid = $storage->getLatestTranslationAffectedRevisionId($default->id(), $default->language()->getId());
    return $vid === NULL || (int) $vid === (int) $default->getRevisionId() ? $default : $storage->loadRevision($vid);
  }

  /**
   * A revision's state in the contract: "published" or "draft".
   */
  protected function statusOf(NodeInterface $revision): string {
    return $revision->isPublished() ? 'published' : 'draft';
  }

  /**
   * Whether a latest revision is a draft the tools may write and publish.
   *
   * Without Content Moderation: an unpublished revision. With it: a revision
   * in a state that is neither published nor a default-revision state (so an
   * archived node is not a draft: a draft revision is created first).
   */
  protected function isDraft(NodeInterface $revision): bool {
    if (!$this->isModerated($revision)) {
      return !$revision->isPublished();
    }
    $workflow = $this->moderationInformation->getWorkflowForEntity($revision);
    $state = $workflow->getTypePlugin()->getState($revision->get('moderation_state')->value);
    return !$state->isPublishedState() && !$state->isDefaultRevisionState();
  }

  /**
   * Whether Content Moderation moderates this node.
   */
  protected function isModerated(NodeInterface $node): bool {
    return $this->moderationInformation !== NULL && $this->moderationInformation->isModeratedEntity($node);
  }

  /**
   * Marks a revision as written now by the account.
   */
  protected function stamp(NodeInterface $revision, AccountInterface $account, string $message): void {
    $revision->setRevisionUserId($account->id());
    $revision->setRevisionCreationTime($this->time->getRequestTime());
    $revision->setRevisionLogMessage($message);
  }

  /**
   * Refuses a revision that Drupal's validation rejects on the given fields.
   */
  protected function assertValid(NodeInterface $revision, array $field_names): void {
    $messages = [];
    foreach ($revision->validate()->getByFields($field_names) as $violation) {
      $messages[] = $violation->getPropertyPath() . ': ' . strip_tags((string) $violation->getMessage());
    }
    if ($messages) {
      throw new ToolError('Drupal refused the change: ' . implode(' ', $messages));
    }
  }

  /**
   * Whether the site's nodes have the standard body field.
   */
  protected function hasBody(): bool {
    return isset($this->entityFieldManager->getFieldStorageDefinitions('node')['body']);
  }

  /**
   * Whether a revision's title or body contains the text (case-insensitive).
   */
  protected function contains(NodeInterface $revision, string $text): bool {
    $haystack = $revision->getTitle() . ' ' . ($revision->hasField('body') ? $revision->get('body')->value : '');
    return mb_stripos($haystack, $text) !== FALSE;
  }

  /**
   * Whether a string can be a node id (numeric on Drupal; the contract allows
   * letters).
   */
  protected function validNid(string $nid): bool {
    return (bool) preg_match('/^[A-Za-z0-9_-]{1,64}$/', $nid);
  }

  /**
   * An optional string argument; a number is taken as its decimal string.
   */
  protected function optionalString(array $arguments, string $name): ?string {
    $value = $arguments[$name] ?? NULL;
    if ($value === NULL || is_string($value)) {
      return $value;
    }
    if (is_int($value)) {
      return (string) $value;
    }
    throw new ToolError("$name must be a string.");
  }

  /**
   * A revision as the contract shows a node.
   *
   * @param \Drupal\node\NodeInterface $default
   *   The node's default revision (what visitors see when it is published).
   * @param \Drupal\node\NodeInterface $revision
   *   The revision to show.
   * @param \Drupal\Core\Session\AccountInterface $account
   *   The account reading it: fields it may not view read as empty.
   */
  protected function present(NodeInterface $default, NodeInterface $revision, AccountInterface $account): array {
    $body = $revision->hasField('body') ? $revision->get('body') : NULL;
    $readable = $body !== NULL && $body->access('view', $account);
    $fields = [
      'body' => $readable ? (string) $body->value : '',
      'summary' => $readable ? (string) $body->summary : '',
    ];
    $media = $this->media($revision, $account);
    if ($media) {
      $fields['media'] = $media;
    }
    return [
      'nid' => (string) $revision->id(),
      'type' => $revision->bundle(),
      'title' => (string) $revision->getTitle(),
      'status' => $this->statusOf($revision),
      'revisionId' => (int) $revision->getRevisionId(),
      'publishedRevisionId' => $default->isPublished() ? (int) $default->getRevisionId() : NULL,
      'fields' => $fields,
    ];
  }

  /**
   * The images of a revision's image fields, inline: absolute URL and alt.
   */
  protected function media(NodeInterface $revision, AccountInterface $account): array {
    $media = [];
    foreach ($revision->getFieldDefinitions() as $name => $definition) {
      if ($definition->getType() !== 'image' || !$revision->get($name)->access('view', $account)) {
        continue;
      }
      foreach ($revision->get($name) as $item) {
        $file = $item->entity;
        if ($file !== NULL) {
          $media[] = ['url' => $this->fileUrlGenerator->generateAbsoluteString($file->getFileUri()), 'alt' => (string) $item->alt];
        }
      }
    }
    return $media;
  }

}
