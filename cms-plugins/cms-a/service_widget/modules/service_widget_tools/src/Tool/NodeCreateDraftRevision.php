<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Node\NodePresenter;
use Drupal\service_widget_tools\Node\NodeRevisions;

/**
 * The node_create_draft_revision tool.
 */
class NodeCreateDraftRevision extends ToolBase {

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
    return 'node_create_draft_revision';
  }

  /**
   * {@inheritdoc}
   */
  public function description(): string {
    return 'Creates a draft revision copied from the latest revision. The published revision stays live.';
  }

  /**
   * {@inheritdoc}
   */
  public function inputSchema(): array {
    return static::objectSchema([
      'nid' => static::NID,
      'message' => ['type' => 'string', 'description' => 'The revision log message.'],
    ], ['nid']);
  }

  /**
   * {@inheritdoc}
   */
  public function call(array $arguments, AccountInterface $account): array {
    $default = $this->revisions->loadForUpdate(static::optionalString($arguments, 'nid'), $account);
    $message = static::optionalString($arguments, 'message');
    $draft = $this->revisions->storage()->createRevision($this->revisions->latest($default), FALSE);
    $this->revisions->stamp($draft, $account, $message ?: 'Draft revision by the Service content editor.');
    if ($this->revisions->isModerated($draft)) {
      $draft->set('moderation_state', 'draft');
    }
    else {
      $draft->setUnpublished();
    }
    $this->revisions->assertValid($draft, ['moderation_state']);
    $draft->save();
    return $this->presenter->present($this->revisions->storage()->loadUnchanged($default->id()), $draft, $account);
  }

}
