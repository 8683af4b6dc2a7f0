<?php

namespace Drupal\service_widget_tools_test;

use Psr\Log\AbstractLogger;

/**
 * Keeps what the site logs, for the tests to read.
 */
class MemoryLog extends AbstractLogger {

  /**
   * Each record: level, channel and the message with its placeholders filled.
   *
   * @var array
   */
  public array $records = [];

  /**
   * {@inheritdoc}
   */
  public function log($level, string|\Stringable $message, array $context = []): void {
    $placeholders = array_filter($context, fn($key) => is_string($key) && in_array($key[0] ?? '', ['@', '%', ':'], TRUE), ARRAY_FILTER_USE_KEY);
    $this->records[] = [$level, $context['channel'] ?? '', strtr((string) $message, array_map('strval', array_filter($placeholders, 'is_scalar')))];
  }

}
