<?php

namespace Drupal\service_widget_tools\Node;

use Drupal\Component\Datetime\TimeInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\content_moderation\ModerationInformationInterface;
use Drupal\node\NodeInterface;
use Drupal\node\NodeStorageInterface;
use Drupal\service_widget_tools\Mcp\ToolError;

/**
 * Nodes, their drafts and the checks the writing tools share.
 *
 * A draft is an unpublished latest revision. Beside a published node it is a
 * pending (non-default) revision, so visitors keep seeing the published one
 * until node_publish saves the draft's content as a new default revision.
 * With Content Moderation on the node's bundle, the moderation states
 * "draft" and "published" are set instead and Content Moderation decides the
 * default revision, as it does for the node form.
 */
class NodeRevisions {

  /**
   * Constructs the service.
   *
   * @param \Drupal\Core\Entity\EntityTypeManagerInterface $entityTypeManager
   *   The entity type manager.
   * @param \Drupal\Component\Datetime\TimeInterface $time
   *   The time service.
   * @param \Drupal\content_moderation\ModerationInformationInterface|null $moderationInformation
   *   Content Moderation's information service, NULL without that module.
   */
  public function __construct(
    protected readonly EntityTypeManagerInterface $entityTypeManager,
    protected readonly TimeInterface $time,
    protected readonly ?ModerationInformationInterface $moderationInformation = NULL,
  ) {
  }

  /**
   * The node storage.
   */
  public function storage(): NodeStorageInterface {
    return $this->entityTypeManager->getStorage('node');
  }

  /**
   * The node of this id, if the id can be one and the node exists.
   */
  public function load(string $nid): ?NodeInterface {
    // Node ids are integers on Drupal; the contract allows letters, which no
    // node has. load() drops what cannot be an id.
    return preg_match('/^[A-Za-z0-9_-]{1,64}$/', $nid) ? $this->storage()->load($nid) : NULL;
  }

  /**
   * Loads the node named by the nid argument, for an update by the account.
   */
  public function loadForUpdate(?string $nid, AccountInterface $account): NodeInterface {
    if ($nid === NULL || $nid === '') {
      throw new ToolError('nid is required: the id of the node.');
    }
    $node = $this->load($nid);
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
  public function draftForUpdate(NodeInterface $default, AccountInterface $account, string $no_draft): NodeInterface {
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
   * The latest revision of a node's translation, given its default revision.
   *
   * Another language's pending revision is not this translation's draft.
   */
  public function latest(NodeInterface $default): NodeInterface {
    if ($default->isLatestRevision()) {
      return $default;
    }
    $storage = $this->storage();
    $vid = $storage->getLatestTranslationAffectedRevisionId($default->id(), $default->language()->getId());
    return $vid === NULL || (int) $vid === (int) $default->getRevisionId() ? $default : $storage->loadRevision($vid);
  }

  /**
   * Whether a latest revision is a draft the tools may write and publish.
   *
   * Without Content Moderation: an unpublished revision. With it: a revision
   * in a state that is neither published nor a default-revision state (so an
   * archived node is not a draft: a draft revision is created first).
   */
  public function isDraft(NodeInterface $revision): bool {
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
  public function isModerated(NodeInterface $node): bool {
    return $this->moderationInformation !== NULL && $this->moderationInformation->isModeratedEntity($node);
  }

  /**
   * Marks a revision as written now by the account.
   */
  public function stamp(NodeInterface $revision, AccountInterface $account, string $message): void {
    $revision->setRevisionUserId($account->id());
    $revision->setRevisionCreationTime($this->time->getRequestTime());
    $revision->setRevisionLogMessage($message);
  }

  /**
   * Refuses a revision that Drupal's validation rejects on the given fields.
   */
  public function assertValid(NodeInterface $revision, array $field_names): void {
    $messages = [];
    foreach ($revision->validate()->getByFields($field_names) as $violation) {
      $messages[] = $violation->getPropertyPath() . ': ' . strip_tags((string) $violation->getMessage());
    }
    if ($messages) {
      throw new ToolError('Drupal refused the change: ' . implode(' ', $messages));
    }
  }

}
