<?php

namespace Drupal\service_widget\Form;

use Drupal\Core\Form\ConfigFormBase;
use Drupal\Core\Form\FormStateInterface;

/**
 * Settings under /admin/config/services/service-widget: service URL, API key, instance ID.
 */
class SettingsForm extends ConfigFormBase {

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
    // Write-only: the stored key is never shown; an empty field keeps it.
    $form['api_key'] = [
      '#type' => 'password',
      '#title' => $this->t('API key'),
      '#description' => $config->get('api_key') ? $this->t('Set. Type a new key to replace it.') : $this->t('Not set.'),
    ];
    $form['instance_id'] = [
      '#type' => 'textfield',
      '#title' => $this->t('Instance ID'),
      '#default_value' => $config->get('instance_id'),
      '#required' => TRUE,
      '#pattern' => '[a-z0-9][a-z0-9-]*',
    ];
    return parent::buildForm($form, $form_state);
  }

  /**
   * {@inheritdoc}
   */
  public function submitForm(array &$form, FormStateInterface $form_state) {
    $config = $this->config('service_widget.settings')
      ->set('service_url', rtrim($form_state->getValue('service_url'), '/'))
      ->set('instance_id', $form_state->getValue('instance_id'));
    if ($form_state->getValue('api_key') !== '') {
      $config->set('api_key', $form_state->getValue('api_key'));
    }
    $config->save();
    // The library's bundle URL depends on the service URL.
    \Drupal::service('library.discovery')->clearCachedDefinitions();
    parent::submitForm($form, $form_state);
  }

}
