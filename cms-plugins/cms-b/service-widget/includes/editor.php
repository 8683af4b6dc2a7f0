<?php
/**
 * The widget bundle on admin pages, and editor-sync.js on post editing pages.
 */

if (!defined('ABSPATH')) {
    exit;
}

/** Admin pages only, users with manage_options only, never the front end. */
function service_widget_enqueue_scripts(): void {
    if (!is_admin() || !current_user_can('manage_options')) {
        return;
    }
    $settings = service_widget_settings();
    if ($settings['service_url'] === '' || $settings['api_key'] === '' || $settings['instance_id'] === '') {
        return;
    }
    $post_id = isset($_GET['post']) ? absint($_GET['post']) : 0;
    $src = add_query_arg('v', rawurlencode(SERVICE_WIDGET_VERSION), $settings['service_url'] . '/api/cms-b-widget/bundle.js');
    wp_enqueue_script('service-widget', $src, [], null, true);
    $config = [
        'serviceUrl' => $settings['service_url'],
        'apiKey' => $settings['api_key'],
        'instanceId' => $settings['instance_id'],
        'agentSlug' => 'cms-b-content-editor',
        'itemId' => $post_id ? (string) $post_id : '',
        // A published post asks before its first edit (the edit makes it a draft until it is published again).
        'itemStatus' => $post_id ? (string) get_post_status($post_id) : '',
    ];
    wp_add_inline_script('service-widget', 'window.ServiceWidgetConfig = ' . wp_json_encode($config) . ';', 'before');
    if ($post_id) {
        // The open editor shows what the assistant stored (see editor-sync.js). Its words are
        // WordPress's own ("Publish", "Save Draft"), translated as the classic editor's are.
        wp_enqueue_script('service-widget-editor-sync', plugins_url('editor-sync.js', SERVICE_WIDGET_FILE), ['wp-api-fetch', 'wp-i18n', 'jquery'], SERVICE_WIDGET_VERSION, true);
    }
}
