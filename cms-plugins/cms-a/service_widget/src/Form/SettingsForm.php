<?php

namespace Drupal\service_widget\Form;

use Drupal\Core\Cache\CacheTagsInvalidatorInterface;
use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Config\TypedConfigManagerInterface;
use Drupal\Core\Form\ConfigFormBase;
use Drupal\Core\Form\FormStateInterface;
use Drupal\Core\State\StateInterface;
use Symfony\Component\DependencyInjection\ContainerInterface;

/**
 * Settings under /admin/config/services/service-widget: service URL, API key,
 * instance ID.
 *
 * The service URL and instance ID are configuration (service_widget.settings).
 * The API key is kept in the State API under service_widget.api_key, so a
 * configuration export never holds it.
 */
class SettingsForm extends ConfigFormBase {

  /**
   * The state key holding the widget API key.
   */
  const API_KEY_STATE = 'service_widget.api_key';

  /**
   * Constructs the settings form.
   *
   * @param \Drupal\Core\Config\ConfigFactoryInterface $config_factory
   *   The config factory.
   * @param \Drupal\Core\Config\TypedConfigManagerInterface $typed_config_manager
   *   The typed config manager (ignored by ConfigFormBase before Drupal 10.2).
   * @param \Drupal\Core\State\StateInterface $state
   *   The state service.
   * @param \Drupal\Core\Cache\CacheTagsInvalidatorInterface $cacheTagsInvalidator
   *   The cache tags invalidator.
   */
  public function __construct(
    ConfigFactoryInterface $config_factory,
    TypedConfigManagerInterface $typed_config_manager,
    protected StateInterface $state,
    protected CacheTagsInvalidatorInterface $cacheTagsInvalidator,
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
      $container->get('state'),
      $container->get('cache_tags.invalidator'),
    );
  }

  /**
   * {@inheritdoc}
   */
  public function getFormId() {
    return 'service_widget_settings';
  }

  /**
   * {@inheritdoc}
   */
  protected function getEditableConfigNames() {
    return ['service_widget.settings'];
  }

  /**
   * {@inheritdoc}
   */
  public function buildForm(array $form, FormStateInterface $form_state) {
    $config = $this->config('service_widget.settings');
    $form['service_url'] = [
      '#type' => 'url',
      '#title' => $this->t('Service URL'),
      '#default_value' => $config->get('service_url'),
      '#required' => TRUE,
    ];
    // Write-only: the stored key is never sent back to the browser; an empty
    // field keeps it.
    $has_key = (string) $this->state->get(self::API_KEY_STATE, '') !== '';
    $form['api_key'] = [
      '#type' => 'password',
      '#title' => $this->t('Widget key'),
      '#description' => $has_key
        ? $this->t('A key is stored. Leave empty to keep it, or type a new key to replace it. It is kept in state, not in exported configuration.')
        : $this->t('No key is stored. The widget stays off until one is set.'),
      '#attributes' => ['autocomplete' => 'new-password'],
    ];
    $form['instance_id'] = [
      '#type' => 'textfield',
      '#title' => $this->t('Instance ID'),
      '#default_value' => $config->get('instance_id'),
      '#required' => TRUE,
      '#pattern' => '[a-z0-9](?:[a-z0-9]|-)*',
    ];
    return parent::buildForm($form, $form_state);
  }

  /**
   * {@inheritdoc}
   */
  public function submitForm(array &$form, FormStateInterface $form_state) {
    $key = trim((string) $form_state->getValue('api_key'));
    if ($key !== '') {
      $this->state->set(self::API_KEY_STATE, $key);
    }
    // Saved on every submit: this invalidates the
    // config:service_widget.settings cache tag that the page attachments carry,
    // so pages cached with the old key are rebuilt.
    $this->config('service_widget.settings')
      ->set('service_url', rtrim($form_state->getValue('service_url'), '/'))
      ->set('instance_id', $form_state->getValue('instance_id'))
      ->save();
    // The library's bundle URL depends on the service URL: library definitions
    // are cached under the library_info tag (the way core's own settings do it,
    // on Drupal 10.3 and 11 alike, with no deprecated API).
    $this->cacheTagsInvalidator->invalidateTags(['library_info']);
    parent::submitForm($form, $form_state);
  }

}
