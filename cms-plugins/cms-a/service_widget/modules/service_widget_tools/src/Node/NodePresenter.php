<?php

namespace Drupal\service_widget_tools\Node;

use Drupal\Core\File\FileUrlGeneratorInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\node\NodeInterface;

/**
 * A node revision as the contract shows it.
 */
class NodePresenter {

  /**
   * Constructs the presenter.
   *
   * @param \Drupal\Core\File\FileUrlGeneratorInterface $fileUrlGenerator
   *   The file URL generator.
   */
  public function __construct(protected readonly FileUrlGeneratorInterface $fileUrlGenerator) {
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
  public function present(NodeInterface $default, NodeInterface $revision, AccountInterface $account): array {
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
      'status' => $revision->isPublished() ? 'published' : 'draft',
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
