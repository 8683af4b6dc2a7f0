<?php

/**
 * @file
 * Appended to the test code base's settings.php: one installed code base serves many test sites,
 * each a copy of the installed database in sites/test/<id>, chosen by the SERVICE_DRUPAL_SITE
 * environment variable of the `php -S` server or PHP script that runs it.
 */

$service_test_site = getenv('SERVICE_DRUPAL_SITE');
if (is_string($service_test_site) && preg_match('/^[a-z0-9]{1,32}$/', $service_test_site)) {
  $databases['default']['default']['database'] = $app_root . '/sites/test/' . $service_test_site . '/db.sqlite';
  $settings['file_public_path'] = 'sites/test/' . $service_test_site . '/files';
  $settings['file_private_path'] = $app_root . '/sites/test/' . $service_test_site . '/private';
  // Tests read the site's log; error pages stay short.
  $config['system.logging']['error_level'] = 'hide';
}
