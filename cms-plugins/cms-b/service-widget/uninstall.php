<?php
/**
 * Runs when the plugin is deleted in Plugins (uninstall_plugin()): removes the settings, the
 * webhook subscriptions, the received notifications and the "Test connection" results, on every
 * site of a network.
 */

if (!defined('WP_UNINSTALL_PLUGIN')) {
    exit;
}

require_once __DIR__ . '/includes/stored-data.php';

if (is_multisite()) {
    foreach (get_sites(['fields' => 'ids', 'number' => 0]) as $service_widget_site_id) {
        switch_to_blog($service_widget_site_id);
        service_widget_delete_stored_data();
        restore_current_blog();
    }
} else {
    service_widget_delete_stored_data();
}
