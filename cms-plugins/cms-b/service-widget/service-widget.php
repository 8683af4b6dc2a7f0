<?php
/**
 * Plugin Name: Service Widget
 * Description: Loads the Service assistant widget in the editor for administrators and receives signed notifications from the Service.
 * Version: 0.1.0
 * Requires at least: 6.0
 * Requires PHP: 8.0
 * License: MIT
 * Text Domain: service-widget
 * Domain Path: /languages
 */

if (!defined('ABSPATH')) {
    exit;
}

if (!defined('SERVICE_WIDGET_VERSION')) {
    define('SERVICE_WIDGET_VERSION', '0.1.0');
}
const SERVICE_WIDGET_FILE = __FILE__;

require_once __DIR__ . '/includes/stored-data.php';
require_once __DIR__ . '/includes/settings.php';
require_once __DIR__ . '/includes/editor.php';
require_once __DIR__ . '/includes/rest.php';
require_once __DIR__ . '/includes/idempotency.php';

/*
 * Every hook the plugin adds, each with a named function, so site code can remove any of them,
 * e.g. remove_action('admin_enqueue_scripts', 'service_widget_enqueue_scripts').
 */
add_action('init', 'service_widget_load_textdomain');
add_action('admin_menu', 'service_widget_add_settings_page');
add_action('admin_init', 'service_widget_register_setting');
add_action('admin_post_service_widget_test', 'service_widget_handle_test_connection');
add_action('admin_enqueue_scripts', 'service_widget_enqueue_scripts');
add_action('rest_api_init', 'service_widget_register_routes');
add_filter('rest_pre_dispatch', 'service_widget_idempotent_start', 10, 3);
add_filter('rest_post_dispatch', 'service_widget_idempotent_finish', 10, 3);

/**
 * The translations shipped in languages/ (service-widget-<locale>.mo). WordPress 6.8 finds them
 * from the Domain Path header by itself; 6.0 to 6.7 need this call. A file in
 * wp-content/languages/plugins/ still wins.
 */
function service_widget_load_textdomain(): void {
    load_plugin_textdomain('service-widget', false, dirname(plugin_basename(SERVICE_WIDGET_FILE)) . '/languages');
}
