<?php

namespace Drupal\service_widget_tools\Node;

use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\Field\FieldItemListInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Mcp\ToolError;

/**
 * The text format of a rich-text field the tools write.
 *
 * A body written into an empty field would otherwise be stored with no
 * format, and Drupal would render it with the fallback format (plain text),
 * showing visitors its markup. The tools keep the field's format; an empty
 * field gets the first format, by weight, that the field allows and the tools
 * user may use, other than the fallback format.
 */
class BodyFormat {

  /**
   * Constructs the service.
   *
   * @param \Drupal\Core\Entity\EntityTypeManagerInterface $entityTypeManager
   *   The entity type manager.
   * @param \Drupal\Core\Config\ConfigFactoryInterface $configFactory
   *   The config factory.
   */
  public function __construct(
    protected readonly EntityTypeManagerInterface $entityTypeManager,
    protected readonly ConfigFactoryInterface $configFactory,
  ) {
  }

  /**
   * Gives the field's first item a text format when it has none.
   *
   * @param \Drupal\Core\Field\FieldItemListInterface $field
   *   A text field about to be written, with at least one item.
   * @param \Drupal\Core\Session\AccountInterface $account
   *   The tools user.
   * @param string $nid
   *   The node's id, for the refusal.
   *
   * @throws \Drupal\service_widget_tools\Mcp\ToolError
   *   When the field has no format and the user may use none but plain text.
   */
  public function ensureFormat(FieldItemListInterface $field, AccountInterface $account, string $nid): void {
    $item = $field->first();
    if ($item === NULL || (string) $item->format !== '') {
      return;
    }
    $format = $this->defaultFormat($field->getFieldDefinition()->getSetting('allowed_formats') ?: [], $account);
    if ($format === NULL) {
      $name = $field->getName();
      throw new ToolError("The $name field of node $nid has no text format yet, and the tools user may use no text format for it other than plain text (which would show visitors the markup): grant the tools user's role a text format, for example \"Use the Basic HTML text format\".");
    }
    $item->format = $format;
  }

  /**
   * The first enabled format by weight that the account may use.
   *
   * @param string[] $allowed
   *   The formats the field allows; empty when it allows every format.
   * @param \Drupal\Core\Session\AccountInterface $account
   *   The tools user.
   */
  protected function defaultFormat(array $allowed, AccountInterface $account): ?string {
    $fallback = (string) $this->configFactory->get('filter.settings')->get('fallback_format');
    /** @var \Drupal\filter\FilterFormatInterface[] $formats */
    $formats = $this->entityTypeManager->getStorage('filter_format')->loadByProperties(['status' => TRUE]);
    uasort($formats, fn($a, $b) => $a->get('weight') <=> $b->get('weight'));
    foreach ($formats as $id => $format) {
      if ($id !== $fallback && (!$allowed || in_array($id, $allowed, TRUE)) && $format->access('use', $account)) {
        return (string) $id;
      }
    }
    return NULL;
  }

}
