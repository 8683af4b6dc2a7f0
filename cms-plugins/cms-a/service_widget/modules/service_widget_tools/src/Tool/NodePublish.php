<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Mcp\ToolError;
use Drupal\service_widget_tools\Node\NodePresenter;
use Drupal\service_widget_tools\Node\NodeRevisions;

/**
 * The node_publish tool: the draft's content becomes the default revision.
 */
class NodePublish extends ToolBase {

  /**
   * Constructs the tool.
   *
   * @param \Drupal\service_widget_tools\Node\NodeRevisions $revisions
   *   The nodes and their drafts.
   * @param \Drupal\service_widget_tools\Node\NodePresenter $presenter
   *   The contract's view of a node.
   */
  public function __construct(
    protected readonly NodeRevisions $revisions,
    protected readonly NodePresenter $presenter,
  ) {
  }

  /**
   * {@inheritdoc}
   */
  public function name(): string {
    return 'node_publish';
  }

  /**
   * {@inheritdoc}
   */
  public function description(): string {
    return 'Publishes the node\'s draft revision: it becomes the revision visitors see.';
  }

  /**
   * {@inheritdoc}
   */
  public function inputSchema(): array {
    return static::objectSchema(['nid' => static::NID], ['nid']);
  }

  /**
   * {@inheritdoc}
   */
  public function call(array $arguments, AccountInterface $account): array {
    $default = $this->revisions->loadForUpdate(static::optionalString($arguments, 'nid'), $account);
    $draft = $this->revisions->draftForUpdate($default, $account, "Node {$default->id()} has no draft revision to publish: its latest revision is not a draft.");
    $this->revisions->stamp($draft, $account, 'Published by the Service content editor.');
    if ($this->revisions->isModerated($draft)) {
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
    $this->revisions->assertValid($draft, ['moderation_state', 'status']);
    $draft->save();
    $published = $this->revisions->storage()->loadUnchanged($default->id());
    return $this->presenter->present($published, $published, $account);
  }

}
