<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\Mcp\ToolError;
use Drupal\service_widget_tools\Node\BodyFormat;
use Drupal\service_widget_tools\Node\NodePresenter;
use Drupal\service_widget_tools\Node\NodeRevisions;

/**
 * The node_update tool: writes title, body and summary to the draft.
 */
class NodeUpdate extends ToolBase {

  /**
   * The fields node_update writes.
   */
  const WRITABLE = ['title', 'body', 'summary'];

  /**
   * Constructs the tool.
   *
   * @param \Drupal\service_widget_tools\Node\NodeRevisions $revisions
   *   The nodes and their drafts.
   * @param \Drupal\service_widget_tools\Node\NodePresenter $presenter
   *   The contract's view of a node.
   * @param \Drupal\service_widget_tools\Node\BodyFormat $bodyFormat
   *   The text format of written bodies.
   */
  public function __construct(
    protected readonly NodeRevisions $revisions,
    protected readonly NodePresenter $presenter,
    protected readonly BodyFormat $bodyFormat,
  ) {
  }

  /**
   * {@inheritdoc}
   */
  public function name(): string {
    return 'node_update';
  }

  /**
   * {@inheritdoc}
   */
  public function description(): string {
    return 'Writes fields to the node\'s draft revision (create one first). Fields: title, body, summary.';
  }

  /**
   * {@inheritdoc}
   */
  public function inputSchema(): array {
    return static::objectSchema([
      'nid' => static::NID,
      'fields' => [
        'type' => 'object',
        'properties' => [
          'title' => ['type' => 'string'],
          'body' => ['type' => 'string'],
          'summary' => ['type' => 'string'],
        ],
        'additionalProperties' => FALSE,
      ],
    ], ['nid', 'fields']);
  }

  /**
   * {@inheritdoc}
   */
  public function call(array $arguments, AccountInterface $account): array {
    $fields = $this->fields($arguments);
    $default = $this->revisions->loadForUpdate(static::optionalString($arguments, 'nid'), $account);
    $nid = (string) $default->id();
    $draft = $this->revisions->draftForUpdate($default, $account, "Node $nid has no draft revision: its latest revision is not a draft. Create one with node_create_draft_revision first.");
    foreach ($fields as $field => $value) {
      $field_name = $field === 'title' ? 'title' : 'body';
      if (!$draft->hasField($field_name)) {
        throw new ToolError("Node $nid ({$draft->bundle()}) has no $field_name field.");
      }
      if ($field === 'summary' && $draft->getFieldDefinition('body')->getType() !== 'text_with_summary') {
        throw new ToolError("The body field of node $nid has no summary.");
      }
      if (!$draft->get($field_name)->access('edit', $account)) {
        throw new ToolError("Access denied: the tools user may not edit the $field_name field of node $nid.");
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
    if (isset($fields['body']) || isset($fields['summary'])) {
      // A summary written alone into an empty body: Drupal wants a value.
      $draft->get('body')->value ??= '';
      $this->bodyFormat->ensureFormat($draft->get('body'), $account, $nid);
    }
    $this->revisions->assertValid($draft, array_unique(array_map(fn($field) => $field === 'title' ? 'title' : 'body', array_keys($fields))));
    // Saved in place. (Content Moderation makes every save a new revision; the
    // result names the revision written either way.)
    $draft->setNewRevision(FALSE);
    if ($this->revisions->isModerated($draft)) {
      $this->revisions->stamp($draft, $account, 'Edited by the Service content editor.');
    }
    else {
      $draft->setRevisionUserId($account->id());
    }
    $draft->save();
    return $this->presenter->present($this->revisions->storage()->loadUnchanged($default->id()), $draft, $account);
  }

  /**
   * The fields argument, checked: an object of strings naming writable fields.
   */
  protected function fields(array $arguments): array {
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
    return $fields;
  }

}
