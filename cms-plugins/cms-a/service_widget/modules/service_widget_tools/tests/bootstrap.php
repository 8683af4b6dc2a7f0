<?php

/**
 * @file
 * Loads the module's classes over the stand-ins, for PHPUnit and php -S.
 *
 * Symfony's HttpFoundation and DependencyInjection and psr/log come from
 * Debian's packages (php-symfony-http-foundation,
 * php-symfony-dependency-injection, php-psr-log), found on PHP's include
 * path (/usr/share/php).
 */

require_once 'Symfony/Component/HttpFoundation/autoload.php';
require_once 'Symfony/Component/DependencyInjection/autoload.php';
require_once 'Psr/Log/autoload.php';
require_once __DIR__ . '/standins/drupal_api.php';
require_once __DIR__ . '/standins/InMemorySite.php';

spl_autoload_register(function (string $class): void {
  $roots = ['Drupal\\service_widget_tools\\' => dirname(__DIR__) . '/src/'];
  foreach ($roots as $prefix => $dir) {
    if (str_starts_with($class, $prefix)) {
      require $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    }
  }
});

/**
 * The contract fixture every implementation of _mcp_tools answers.
 */
function service_widget_tools_contract_fixture(): array {
  return json_decode(file_get_contents(__DIR__ . '/fixtures/mcp_tools_contract.json'), TRUE, 512, JSON_THROW_ON_ERROR);
}
