<?php

namespace Drupal\service_widget_tools\Form;

use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Config\TypedConfigManagerInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\Form\ConfigFormBase;
use Drupal\Core\Form\FormStateInterface;
use Drupal\service_widget_tools\ToolsKey;
use Symfony\Component\DependencyInjection\ContainerInterface;

/**
 * Settings of _mcp_tools: the user the tools act as, and the key.
 *
 * The key is generated here and shown once; only its hash is stored.
 */
class ToolsSettingsForm extends ConfigFormBase {

  /**
   * Constructs the form.
   *
   * @param \Drupal\Core\Config\ConfigFactoryInterface $config_factory
   *   The config factory.
   * @param \Drupal\Core\Config\TypedConfigManagerInterface $typed_config_manager
   *   The typed config manager.
   * @param \Drupal\service_widget_tools\ToolsKey $key
   *   The endpoint's key.
   * @param \Drupal\Core\Entity\EntityTypeManagerInterface $entityTypeManager
   *   The entity type manager.
   */
  public function __construct(
    ConfigFactoryInterface $config_factory,
    TypedConfigManagerInterface $typed_config_manager,
    protected ToolsKey $key,
    protected EntityTypeManagerInterface $entityTypeManager,
  ) {
    parent::__construct($config_factory, $typed_config_manager);
  }

  /**
   * {@inheritdoc}
   */
  public static function create(ContainerInterface $container) {
    return new static(
      $container->get('config.factory'),
      $container->get('config.typed'),
      $container->get('service_widget_tools.key'),
      $container->get('entity_type.manager'),
    );
  }

  /**
   * {@inheritdoc}
   */
  public function getFormId() {
    return 'service_widget_tools_settings';
  }

  /**
   * {@inheritdoc}
   */
  protected function getEditableConfigNames() {
    return ['service_widget_tools.settings'];
  }

  /**
   * {@inheritdoc}
   */
  public function buildForm(array $form, FormStateInterface $form_state) {
    $uid = (int) $this->config('service_widget_tools.settings')->get('tools_uid');
    $user = $uid > 0 ? $this->entityTypeManager->getStorage('user')->load($uid) : NULL;
    $form['tools_user'] = [
      '#type' => 'entity_autocomplete',
      '#target_type' => 'user',
      '#selection_settings' => ['include_anonymous' => FALSE],
      '#title' => $this->t('Act as this user'),
      '#description' => $this->t('The assistant reads and edits content as this user: its node access decides which nodes, its field access which fields. Create a dedicated user with an editor role; an administrator would bypass both.'),
      '#default_value' => $user,
      '#required' => TRUE,
    ];
    $form['key'] = [
      '#type' => 'details',
      '#title' => $this->t('Key'),
      '#open' => TRUE,
    ];
    $new_key = $form_state->get('new_key');
    if ($new_key !== NULL) {
      $form['key']['new_key'] = [
        '#type' => 'textfield',
        '#title' => $this->t('New key'),
        '#value' => $new_key,
        '#attributes' => ['readonly' => 'readonly', 'autocomplete' => 'off'],
        '#description' => $this->t('Copy it now into the Service (Connectors › CMS-A › MCP key). It is shown only this once: the site keeps only its hash.'),
      ];
    }
    else {
      $form['key']['status'] = [
        '#markup' => $this->key->isSet()
          ? $this->t('A key is set. Generating a new one stops the old one at once.')
          : $this->t('No key is set: /_mcp_tools refuses every request until one is generated.'),
      ];
    }
    $form['key']['generate'] = [
      '#type' => 'submit',
      '#value' => $this->key->isSet() ? $this->t('Generate a new key') : $this->t('Generate a key'),
      '#submit' => ['::generateKey'],
      '#limit_validation_errors' => [],
    ];
    return parent::buildForm($form, $form_state);
  }

  /**
   * {@inheritdoc}
   */
  public function validateForm(array &$form, FormStateInterface $form_state) {
    $uid = (int) $form_state->getValue('tools_user');
    $user = $uid > 0 ? $this->entityTypeManager->getStorage('user')->load($uid) : NULL;
    if ($user === NULL || !$user->isActive()) {
      $form_state->setErrorByName('tools_user', $this->t('Choose an active user.'));
    }
    parent::validateForm($form, $form_state);
  }

  /**
   * {@inheritdoc}
   */
  public function submitForm(array &$form, FormStateInterface $form_state) {
    $uid = (int) $form_state->getValue('tools_user');
    $this->config('service_widget_tools.settings')->set('tools_uid', $uid)->save();
    parent::submitForm($form, $form_state);
    $user = $this->entityTypeManager->getStorage('user')->load($uid);
    if ($user !== NULL && $user->hasPermission('bypass node access')) {
      $this->messenger()->addWarning($this->t('%name bypasses node access: the assistant will be able to edit every node. A dedicated editor user is safer.', ['%name' => $user->getDisplayName()]));
    }
  }

  /**
   * Generates a key and shows it once, in the rebuilt form.
   */
  public function generateKey(array &$form, FormStateInterface $form_state) {
    $form_state->set('new_key', $this->key->generate());
    // A rebuilt form is cached (key_value_expire) with its state unless told
    // not to be: the key must not be stored anywhere.
    $form_state->disableCache();
    $form_state->setRebuild();
  }

}
