<?php

namespace Drupal\service_widget_tools\Form;

use Drupal\Core\Entity\ContentEntityFormInterface;
use Drupal\Core\Entity\EntityInterface;
use Drupal\Core\Entity\EntityRepositoryInterface;
use Drupal\Core\Form\FormStateInterface;
use Drupal\Core\StringTranslation\StringTranslationTrait;
use Drupal\node\NodeInterface;
use Drupal\service_widget_tools\Node\NodeRevisions;
use Drupal\workspaces\WorkspaceManagerInterface;

/**
 * Drupal's node screens, where a node has a draft and no Content Moderation.
 *
 * Content Moderation makes the node edit form start from the latest revision
 * (its route subscriber and EntityTypeInfo::entityPrepareForm). Without it,
 * core's form starts from the published revision: it would show the
 * published values and, saved, replace the assistant's draft. So for a node
 * whose latest revision is an unpublished pending one, the form is built
 * from that draft, as Content Moderation builds it, and saving it keeps a
 * draft beside the published revision unless "Published" is checked.
 * Reverting to an unpublished revision takes the node offline, as Drupal
 * intends; the revert form says so.
 */
class NodeDraftForm {

  use StringTranslationTrait;

  /**
   * The form state key marking a node form built from a draft.
   */
  const FROM_DRAFT = 'service_widget_tools_from_draft';

  /**
   * Constructs the service.
   *
   * @param \Drupal\Core\Entity\EntityRepositoryInterface $entityRepository
   *   The entity repository.
   * @param \Drupal\service_widget_tools\Node\NodeRevisions $revisions
   *   The nodes and their drafts.
   * @param \Drupal\workspaces\WorkspaceManagerInterface|null $workspaceManager
   *   The workspace manager, NULL without Workspaces.
   */
  public function __construct(
    protected readonly EntityRepositoryInterface $entityRepository,
    protected readonly NodeRevisions $revisions,
    protected readonly ?WorkspaceManagerInterface $workspaceManager = NULL,
  ) {
  }

  /**
   * Implements hook_entity_prepare_form() for nodes.
   */
  public function prepareForm(EntityInterface $entity, string $operation, FormStateInterface $form_state): void {
    $form_object = $form_state->getFormObject();
    if (!$entity instanceof NodeInterface || $entity->isNew() || !in_array($operation, ['default', 'edit'], TRUE) || !$form_object instanceof ContentEntityFormInterface) {
      return;
    }
    // Content Moderation and Workspaces decide which revision a form edits.
    if ($this->revisions->isModerated($entity) || $this->workspaceManager?->hasActiveWorkspace()) {
      return;
    }
    $latest = $this->entityRepository->getActive('node', $entity->id());
    if (!$latest instanceof NodeInterface || $latest->isDefaultRevision() || $latest->isPublished()) {
      return;
    }
    // As EntityTypeInfo::entityPrepareForm() does: a new pending revision
    // object from the draft, its revision id restored for other modules.
    $draft = $this->revisions->storage()->createRevision($latest, FALSE);
    $draft->set($draft->getEntityType()->getKey('revision'), $draft->getLoadedRevisionId());
    $form_object->setEntity($draft);
    $form_state->set(self::FROM_DRAFT, (int) $latest->getRevisionId());
  }

  /**
   * Implements hook_form_BASE_FORM_ID_alter() for node_form.
   */
  public function alterNodeForm(array &$form, FormStateInterface $form_state): void {
    if (!$form_state->get(self::FROM_DRAFT)) {
      return;
    }
    $form['service_widget_tools_draft'] = [
      '#type' => 'container',
      '#weight' => -100,
      '#attributes' => ['class' => ['messages', 'messages--warning']],
      'text' => [
        '#markup' => $this->t('You are editing the draft (revision @vid), not the published revision visitors see. Saving keeps it a draft beside the published revision; check <em>Published</em> to make it the revision visitors see.', ['@vid' => $form_state->get(self::FROM_DRAFT)]),
      ],
    ];
    $form['#entity_builders'][] = [static::class, 'publishOnlyWhenChecked'];
  }

  /**
   * Entity builder: the draft becomes the default revision only if published.
   */
  public static function publishOnlyWhenChecked(string $entity_type_id, NodeInterface $node, array &$form, FormStateInterface $form_state): void {
    $node->isDefaultRevision($node->isPublished());
  }

  /**
   * Implements hook_form_FORM_ID_alter() for node_revision_revert_confirm.
   */
  public function alterRevertForm(array &$form, FormStateInterface $form_state): void {
    $revision = $form_state->getBuildInfo()['args'][0] ?? NULL;
    if (!$revision instanceof NodeInterface || $revision->isPublished() || $this->revisions->isModerated($revision)) {
      return;
    }
    $form['service_widget_tools_offline'] = [
      '#type' => 'container',
      '#weight' => -100,
      '#attributes' => ['class' => ['messages', 'messages--warning']],
      'text' => [
        '#markup' => $this->t('This revision is unpublished: reverting to it takes the node offline. To publish a draft, open the edit form (it shows the draft), check <em>Published</em> and save, or publish it from the assistant.'),
      ],
    ];
  }

}
