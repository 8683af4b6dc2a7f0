<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Session\AccountInterface;

/**
 * The site_info tool: the site's name and Drupal version.
 */
class SiteInfo extends ToolBase {

  /**
   * Constructs the tool.
   *
   * @param \Drupal\Core\Config\ConfigFactoryInterface $configFactory
   *   The config factory.
   */
  public function __construct(protected readonly ConfigFactoryInterface $configFactory) {
  }

  /**
   * {@inheritdoc}
   */
  public function name(): string {
    return 'site_info';
  }

  /**
   * {@inheritdoc}
   */
  public function description(): string {
    return 'The site name and the Drupal version.';
  }

  /**
   * {@inheritdoc}
   */
  public function inputSchema(): array {
    return static::objectSchema([]);
  }

  /**
   * {@inheritdoc}
   */
  public function call(array $arguments, AccountInterface $account): array {
    return [
      'name' => (string) $this->configFactory->get('system.site')->get('name'),
      'version' => \Drupal::VERSION,
    ];
  }

}
