<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

use Drupal\Core\Form\FormState;
use Drupal\node\Form\NodeRevisionRevertForm;
use Drupal\node\NodeInterface;

/**
 * Drupal's node edit form keeps the assistant's draft (no Content Moderation).
 *
 * @group service_widget_tools
 */
class NodeDraftFormTest extends ToolsKernelTestBase {

  /**
   * The node edit form's object and state for the node, built.
   */
  protected function editForm(NodeInterface $node): array {
    $form_object = $this->container->get('entity_type.manager')->getFormObject('node', 'edit')->setEntity($node);
    $form_state = new FormState();
    $form = $this->container->get('form_builder')->buildForm($form_object, $form_state);
    return [$form, $form_object, $form_state];
  }

  /**
   * Saves the node edit form with a title and the Published checkbox.
   */
  protected function saveEditForm(NodeInterface $node, string $title, bool $published): void {
    $form_object = $this->container->get('entity_type.manager')->getFormObject('node', 'edit')->setEntity($node);
    $form_state = (new FormState())->setValues([
      'title' => [['value' => $title]],
      'status' => ['value' => $published],
      'revision' => TRUE,
      'op' => 'Save',
    ]);
    $this->container->get('form_builder')->submitForm($form_object, $form_state);
    $this->assertSame([], $form_state->getErrors());
  }

  /**
   * The node's default revision, loaded fresh.
   */
  protected function load(string $nid): NodeInterface {
    $storage = $this->container->get('entity_type.manager')->getStorage('node');
    $storage->resetCache();
    return $storage->load($nid);
  }

  public function testTheEditFormShowsTheDraftAndSavingKeepsIt(): void {
    $this->setCurrentUser($this->createUser([], 'editor', TRUE));
    $nid = (string) $this->article('Published title')->id();
    $draft = $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $this->ok('node_update', ['nid' => $nid, 'fields' => ['title' => 'Draft title']]);
    $this->setCurrentUser($this->createUser([], 'editor2', TRUE));

    [$form] = $this->editForm($this->load($nid));
    $this->assertSame('Draft title', $form['title']['widget'][0]['value']['#default_value']);
    $this->assertFalse((bool) $form['status']['widget']['value']['#default_value'], 'the draft is unpublished');
    $this->assertStringContainsString("You are editing the draft (revision {$draft['revisionId']})", (string) $form['service_widget_tools_draft']['text']['#markup']);

    // Saved unchecked: still a draft beside the published revision, which
    // visitors keep seeing, and the assistant can go on writing it.
    $this->saveEditForm($this->load($nid), 'Draft title, by a person', FALSE);
    $this->assertSame('Published title', $this->load($nid)->getTitle());
    $this->assertTrue($this->load($nid)->isPublished());
    $this->assertSame('Draft title, by a person, and the assistant', $this->ok('node_update', ['nid' => $nid, 'fields' => ['title' => 'Draft title, by a person, and the assistant']])['title']);

    // Saved checked: the draft becomes the revision visitors see.
    $this->saveEditForm($this->load($nid), 'Published by a person', TRUE);
    $this->assertSame('Published by a person', $this->load($nid)->getTitle());
    $this->assertTrue($this->load($nid)->isPublished());
    $this->assertSame(['published', 'Published by a person', TRUE], array_slice(array_reverse($this->revisions($nid))[0], 1));
  }

  public function testWithoutADraftTheFormIsCores(): void {
    $this->setCurrentUser($this->createUser([], 'editor', TRUE));
    $nid = (string) $this->article('Published title')->id();
    [$form] = $this->editForm($this->load($nid));
    $this->assertSame('Published title', $form['title']['widget'][0]['value']['#default_value']);
    $this->assertArrayNotHasKey('service_widget_tools_draft', $form);
    $this->saveEditForm($this->load($nid), 'Renamed', TRUE);
    $this->assertSame('Renamed', $this->load($nid)->getTitle());
  }

  public function testTheRevertFormWarnsThatAnUnpublishedRevisionTakesTheNodeOffline(): void {
    $this->setCurrentUser($this->createUser([], 'editor', TRUE));
    $nid = (string) $this->article('Published title')->id();
    $draft = $this->ok('node_create_draft_revision', ['nid' => $nid]);
    $storage = $this->container->get('entity_type.manager')->getStorage('node');
    $form = $this->container->get('form_builder')->getForm(NodeRevisionRevertForm::class, $storage->loadRevision($draft['revisionId']));
    $this->assertStringContainsString('reverting to it takes the node offline', (string) $form['service_widget_tools_offline']['text']['#markup']);
    $form = $this->container->get('form_builder')->getForm(NodeRevisionRevertForm::class, $storage->loadRevision($this->revisions($nid)[0][0]));
    $this->assertArrayNotHasKey('service_widget_tools_offline', $form);
  }

}
