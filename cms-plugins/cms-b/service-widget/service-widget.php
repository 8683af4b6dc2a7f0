<?php
/**
 * Plugin Name: Service Widget
 * Description: Loads the Service assistant widget in the editor for administrators and receives signed notifications from the Service.
 * Version: 0.1.0
 * Requires at least: 6.0
 * Requires PHP: 8.0
 * License: MIT
 */

if (!defined('ABSPATH')) {
    exit;
}

if (!defined('SERVICE_WIDGET_VERSION')) {
    define('SERVICE_WIDGET_VERSION', '0.1.0');
}

const SERVICE_WIDGET_OPTION = 'service_widget_settings';
const SERVICE_WIDGET_WEBHOOKS = 'service_widget_webhooks';
const SERVICE_WIDGET_RECEIVED = 'service_widget_received';
const SERVICE_WIDGET_MAX_SKEW = 300;

function service_widget_settings(): array {
    $defaults = ['service_url' => '', 'api_key' => '', 'instance_id' => '', 'webhook_secret' => ''];
    return array_merge($defaults, (array) get_option(SERVICE_WIDGET_OPTION, []));
}

/* Settings page under Settings, through the Settings API (nonce and capability checks included). */
add_action('admin_menu', function () {
    add_options_page('Service Widget', 'Service Widget', 'manage_options', 'service-widget', 'service_widget_render_settings');
});

add_action('admin_init', function () {
    register_setting('service_widget', SERVICE_WIDGET_OPTION, [
        'type' => 'array',
        'sanitize_callback' => 'service_widget_sanitize',
        'default' => [],
    ]);
});

function service_widget_sanitize($input): array {
    $input = is_array($input) ? $input : [];
    $previous = service_widget_settings();
    return [
        'service_url' => esc_url_raw(rtrim(trim((string) ($input['service_url'] ?? '')), '/'), ['http', 'https']),
        // Secrets are write-only: an empty field keeps the stored value.
        'api_key' => ($input['api_key'] ?? '') !== '' ? sanitize_text_field($input['api_key']) : $previous['api_key'],
        'instance_id' => sanitize_key($input['instance_id'] ?? ''),
        'webhook_secret' => ($input['webhook_secret'] ?? '') !== '' ? sanitize_text_field($input['webhook_secret']) : $previous['webhook_secret'],
    ];
}

function service_widget_render_settings(): void {
    if (!current_user_can('manage_options')) {
        return;
    }
    $settings = service_widget_settings();
    echo '<div class="wrap"><h1>Service Widget</h1><form method="post" action="options.php">';
    settings_fields('service_widget');
    $field = function (string $name, string $label, string $type, string $value, string $placeholder = '', string $pattern = '', int $maxlength = 500) {
        printf(
            '<p><label for="service-widget-%1$s">%2$s</label><br><input id="service-widget-%1$s" name="%3$s[%1$s]" type="%4$s" value="%5$s" placeholder="%6$s" maxlength="%7$d"%8$s class="regular-text" autocomplete="off"></p>',
            esc_attr($name), esc_html($label), esc_attr(SERVICE_WIDGET_OPTION), esc_attr($type), esc_attr($value), esc_attr($placeholder), $maxlength,
            $pattern === '' ? '' : ' pattern="' . esc_attr($pattern) . '"'
        );
    };
    $field('service_url', 'Service URL', 'url', $settings['service_url']);
    $field('api_key', 'API key', 'password', '', $settings['api_key'] ? 'set — type to replace' : 'not set');
    // The service's connector instance ids: lower-case letters, digits and hyphens (written so the v-flag regex browsers use accepts it).
    $field('instance_id', 'Instance ID', 'text', $settings['instance_id'], '', '[a-z0-9](?:[a-z0-9]|-)*', 63);
    $field('webhook_secret', 'Webhook secret (optional)', 'password', '', $settings['webhook_secret'] ? 'set — type to replace' : 'not set');
    submit_button();
    echo '</form></div>';
}

/* The bundle: admin pages only, users with manage_options only, never the front end. */
add_action('admin_enqueue_scripts', function () {
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
        // The open editor shows what the assistant stored (see editor-sync.js).
        wp_enqueue_script('service-widget-editor-sync', plugins_url('editor-sync.js', __FILE__), ['wp-api-fetch'], SERVICE_WIDGET_VERSION, true);
    }
});

/* REST under /wp-json/service/v1/: webhook subscriptions (manage_options) and the signed receive endpoint. */
add_action('rest_api_init', function () {
    $admin = function () {
        return current_user_can('manage_options');
    };
    register_rest_route('service/v1', '/webhooks', [
        ['methods' => 'GET', 'permission_callback' => $admin, 'callback' => function () {
            return array_values((array) get_option(SERVICE_WIDGET_WEBHOOKS, []));
        }],
        ['methods' => 'POST', 'permission_callback' => $admin, 'args' => [
            'event' => ['required' => true, 'type' => 'string', 'pattern' => '^[a-z][a-z0-9_.]{1,63}$'],
        ], 'callback' => function (WP_REST_Request $request) {
            $hooks = (array) get_option(SERVICE_WIDGET_WEBHOOKS, []);
            $id = wp_generate_uuid4();
            $hooks[$id] = ['id' => $id, 'event' => $request['event'], 'created' => gmdate('c')];
            update_option(SERVICE_WIDGET_WEBHOOKS, $hooks, false);
            return new WP_REST_Response($hooks[$id], 201);
        }],
    ]);
    register_rest_route('service/v1', '/webhooks/(?P<id>[a-f0-9-]{36})', [
        'methods' => 'DELETE', 'permission_callback' => $admin, 'callback' => function (WP_REST_Request $request) {
            $hooks = (array) get_option(SERVICE_WIDGET_WEBHOOKS, []);
            if (!isset($hooks[$request['id']])) {
                return new WP_Error('service_widget_not_found', 'No such webhook', ['status' => 404]);
            }
            unset($hooks[$request['id']]);
            update_option(SERVICE_WIDGET_WEBHOOKS, $hooks, false);
            return ['deleted' => true];
        },
    ]);
    register_rest_route('service/v1', '/received', [
        'methods' => 'GET', 'permission_callback' => $admin, 'callback' => function () {
            $received = (array) get_option(SERVICE_WIDGET_RECEIVED, []);
            $list = [];
            foreach (array_reverse($received, true) as $id => $entry) {
                $list[] = ['id' => (string) $id, 'type' => $entry['type'], 'postId' => isset($entry['postId']) ? $entry['postId'] : null, 'at' => $entry['at']];
            }
            return $list;
        },
    ]);
    // Signed by the Service: X-Service-Timestamp and X-Service-Signature = hex HMAC-SHA256 of "<timestamp>.<body>".
    register_rest_route('service/v1', '/receive', [
        'methods' => 'POST', 'permission_callback' => '__return_true', 'callback' => 'service_widget_receive',
    ]);
});

function service_widget_receive(WP_REST_Request $request) {
    $secret = service_widget_settings()['webhook_secret'];
    $timestamp = (string) $request->get_header('x_service_timestamp');
    $signature = (string) $request->get_header('x_service_signature');
    $body = $request->get_body();
    if ($secret === '' || !ctype_digit($timestamp) || $signature === '') {
        return new WP_Error('service_widget_unsigned', 'Missing signature', ['status' => 401]);
    }
    if (abs(time() - (int) $timestamp) > SERVICE_WIDGET_MAX_SKEW) {
        return new WP_Error('service_widget_stale', 'Timestamp too old', ['status' => 401]);
    }
    if (!hash_equals(hash_hmac('sha256', $timestamp . '.' . $body, $secret), $signature)) {
        return new WP_Error('service_widget_bad_signature', 'Bad signature', ['status' => 401]);
    }
    $event = json_decode($body, true);
    if (!is_array($event) || !isset($event['id'], $event['type']) || !is_string($event['id']) || !is_string($event['type'])
        || !preg_match('/^[A-Za-z0-9-]{1,64}$/', $event['id']) || !preg_match('/^[a-z][a-z0-9_.]{1,63}$/', $event['type'])) {
        return new WP_Error('service_widget_bad_event', 'Malformed event', ['status' => 400]);
    }
    // add_option inserts or fails: of two concurrent deliveries of one event, one gets through.
    if (!add_option('service_widget_event_' . md5($event['id']), gmdate('c'), '', false)) {
        return new WP_Error('service_widget_replay', 'Event already received', ['status' => 409]);
    }
    $received = (array) get_option(SERVICE_WIDGET_RECEIVED, []);
    $data = isset($event['data']) && is_array($event['data']) ? $event['data'] : [];
    $post_id = isset($data['postId']) ? absint($data['postId']) : null;
    $received[$event['id']] = ['type' => $event['type'], 'postId' => $post_id, 'at' => gmdate('c')];
    $kept = array_slice($received, -500, null, true);
    // Events older than the kept 500 are far outside the timestamp window; their markers can go.
    foreach (array_keys(array_diff_key($received, $kept)) as $old_id) {
        delete_option('service_widget_event_' . md5((string) $old_id));
    }
    update_option(SERVICE_WIDGET_RECEIVED, $kept, false);
    /**
     * Fires once per verified notification from the Service, e.g. to clear a cache or notify an editor.
     *
     * @param string $type  Event type, e.g. "content.draft_updated".
     * @param array  $data  Event payload (see readme.txt), as sent: verified, not sanitised.
     * @param string $id    Event id (unique; replays are refused before this runs).
     */
    do_action('service_widget_notification', $event['type'], $data, $event['id']);
    return new WP_REST_Response(['received' => true], 202);
}
