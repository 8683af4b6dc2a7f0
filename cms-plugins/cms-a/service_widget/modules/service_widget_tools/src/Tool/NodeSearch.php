<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\Core\Entity\EntityFieldManagerInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Mcp\ToolError;
use Drupal\service_widget_tools\Node\NodePresenter;
use Drupal\service_widget_tools\Node\NodeRevisions;

/**
 * The node_search tool.
 *
 * One entity query answers every search, by id or not, so the text matches
 * as the site's database compares it (its LIKE): on MySQL, MariaDB and
 * PostgreSQL case-insensitively for all letters, on SQLite for the ASCII
 * letters A-Z only. Searching by id with a text applies the same rule.
 */
class NodeSearch extends ToolBase {

  /**
   * The most nodes node_search answers.
   */
  const MAX_LIMIT = 50;

  /**
   * Constructs the tool.
   *
   * @param \Drupal\service_widget_tools\Node\NodeRevisions $revisions
   *   The nodes and their drafts.
   * @param \Drupal\service_widget_tools\Node\NodePresenter $presenter
   *   The contract's view of a node.
   * @param \Drupal\Core\Entity\EntityFieldManagerInterface $entityFieldManager
   *   The entity field manager.
   */
  public function __construct(
    protected readonly NodeRevisions $revisions,
    protected readonly NodePresenter $presenter,
    protected readonly EntityFieldManagerInterface $entityFieldManager,
  ) {
  }

  /**
   * {@inheritdoc}
   */
  public function name(): string {
    return 'node_search';
  }

  /**
   * {@inheritdoc}
   */
  public function description(): string {
    return 'Finds nodes by id or by text in the title or body. Without editContext each node is its published (default) revision; with editContext it is the latest revision, the draft when there is one.';
  }

  /**
   * {@inheritdoc}
   */
  public function inputSchema(): array {
    return static::objectSchema([
      'nid' => static::NID,
      'text' => ['type' => 'string', 'description' => 'Words to find in the title or body.'],
      'status' => ['type' => 'string', 'enum' => ['published', 'draft', 'any'], 'description' => 'Only nodes in this state (default any).'],
      'limit' => ['type' => 'integer', 'minimum' => 1, 'maximum' => self::MAX_LIMIT, 'description' => 'At most this many nodes (default 10).'],
      'editContext' => ['type' => 'boolean', 'description' => 'Read the latest revision, for editing.'],
    ]);
  }

  /**
   * {@inheritdoc}
   */
  public function call(array $arguments, AccountInterface $account): array {
    $nid = static::optionalString($arguments, 'nid');
    $text = static::optionalString($arguments, 'text');
    $status = static::optionalString($arguments, 'status') ?? 'any';
    if (!in_array($status, ['published', 'draft', 'any'], TRUE)) {
      throw new ToolError('status must be one of: published, draft, any.');
    }
    $limit = $arguments['limit'] ?? 10;
    if (!is_int($limit) || $limit < 1 || $limit > self::MAX_LIMIT) {
      throw new ToolError('limit must be an integer from 1 to ' . self::MAX_LIMIT . '.');
    }
    $edit_context = ($arguments['editContext'] ?? FALSE) === TRUE;
    $node = NULL;
    if ($nid !== NULL) {
      $node = $this->revisions->load($nid);
      if ($node === NULL) {
        return ['nodes' => []];
      }
    }

    // Node access is checked per node (update access, for an edit context, is
    // no query condition), so a page of ids may lose some: read further pages
    // until the answer is full, at most five.
    $storage = $this->revisions->storage();
    $nodes = [];
    for ($page = 0; $page < 5 && count($nodes) < $limit; $page++) {
      $query = $storage->getQuery()->accessCheck(TRUE)->sort('changed', 'DESC')->sort('nid', 'DESC')->range($page * $limit, $limit);
      if ($edit_context) {
        $query->latestRevision();
      }
      if ($node !== NULL) {
        $query->condition('nid', $node->id());
      }
      if ($text !== NULL && $text !== '') {
        $matches = $query->orConditionGroup()->condition('title', $text, 'CONTAINS');
        if (isset($this->entityFieldManager->getFieldStorageDefinitions('node')['body'])) {
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
      // In the query's order: loadMultipleRevisions() keeps no order.
      foreach ($ids as $vid => $id) {
        $revision = $revisions[$edit_context ? $vid : $id] ?? NULL;
        $default = $defaults[$id] ?? NULL;
        if ($revision !== NULL && $default !== NULL && count($nodes) < $limit && $default->access($edit_context ? 'update' : 'view', $account)) {
          $nodes[] = $this->presenter->present($default, $revision, $account);
        }
      }
      if (count($ids) < $limit) {
        break;
      }
    }
    return ['nodes' => $nodes];
  }

}
