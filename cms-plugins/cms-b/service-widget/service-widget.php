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
    echo '<div class="wrap"><h1>Service Widget</h1>';
    service_widget_render_test_result();
    echo '<p>The assistant in the post editor is served by the service. Each value below comes from the service&rsquo;s administration pages.</p>';
    echo '<form method="post" action="options.php">';
    settings_fields('service_widget');
    $field = function (string $name, string $label, string $type, string $value, string $help, string $placeholder = '', string $pattern = '', int $maxlength = 500) {
        printf(
            '<p><label for="service-widget-%1$s">%2$s</label><br><input id="service-widget-%1$s" name="%3$s[%1$s]" type="%4$s" value="%5$s" placeholder="%6$s" maxlength="%7$d"%8$s aria-describedby="service-widget-%1$s-help" class="regular-text" autocomplete="off"><br><span id="service-widget-%1$s-help" class="description">%9$s</span></p>',
            esc_attr($name), esc_html($label), esc_attr(SERVICE_WIDGET_OPTION), esc_attr($type), esc_attr($value), esc_attr($placeholder), $maxlength,
            $pattern === '' ? '' : ' pattern="' . esc_attr($pattern) . '"',
            esc_html($help)
        );
    };
    $field('service_url', 'Service URL', 'url', $settings['service_url'], 'The address you open the service at, for example https://agents.example.com.');
    // The same name the service uses for it (Administration > Assistants).
    $field('api_key', 'Widget key', 'password', '', 'In the service: Administration > Assistants > CMS-B, "Generate key" for this site\'s instance; it is shown once. Stored here and only sent to the service.', $settings['api_key'] ? 'set — type to replace' : 'not set');
    // The service's connector instance ids: lower-case letters, digits and hyphens (written so the v-flag regex browsers use accepts it).
    $field('instance_id', 'Instance ID', 'text', $settings['instance_id'], 'In the service: Administration > Connectors > CMS-B, the ID of the instance registered for this site.', '', '[a-z0-9](?:[a-z0-9]|-)*', 63);
    $field('webhook_secret', 'Webhook secret (optional)', 'password', '', 'In the service: the same instance under Connectors > CMS-B. With it the service tells this site about the assistant\'s edits.', $settings['webhook_secret'] ? 'set — type to replace' : 'not set');
    submit_button();
    echo '</form>';
    // Checked from this server, as the widget's requests will be: the service URL, the key and this site's origin.
    echo '<form method="post" action="' . esc_url(admin_url('admin-post.php')) . '">';
    wp_nonce_field('service_widget_test');
    echo '<input type="hidden" name="action" value="service_widget_test">';
    submit_button('Test connection', 'secondary', 'service-widget-test', false);
    echo ' <span class="description">Uses the saved settings.</span></form></div>';
}

/** The last "Test connection" result of this user, once. */
function service_widget_render_test_result(): void {
    $key = 'service_widget_test_' . get_current_user_id();
    $result = get_transient($key);
    if (!is_array($result)) {
        return;
    }
    delete_transient($key);
    printf('<div class="notice notice-%s" role="status"><p>%s</p></div>', $result['ok'] ? 'success' : 'error', esc_html($result['message']));
}

add_action('admin_post_service_widget_test', function () {
    if (!current_user_can('manage_options')) {
        wp_die('Sorry, you are not allowed to test the connection.', 403);
    }
    check_admin_referer('service_widget_test');
    set_transient('service_widget_test_' . get_current_user_id(), service_widget_test_connection(service_widget_settings()), 300);
    wp_safe_redirect(admin_url('options-general.php?page=service-widget'));
    exit;
});

/** Asks the service's status route with the saved settings and this site's origin; the answer in plain words. */
function service_widget_test_connection(array $settings): array {
    if ($settings['service_url'] === '' || $settings['api_key'] === '' || $settings['instance_id'] === '') {
        return ['ok' => false, 'message' => 'Fill in and save the service URL, the widget key and the instance ID first.'];
    }
    $home = wp_parse_url(home_url());
    $origin = $home['scheme'] . '://' . $home['host'] . (isset($home['port']) ? ':' . $home['port'] : '');
    $url = $settings['service_url'] . '/api/agents/cms-b-content-editor/status?instanceId=' . rawurlencode($settings['instance_id']);
    $response = wp_remote_get($url, [
        'timeout' => 10,
        'redirection' => 0,
        'headers' => ['Authorization' => 'Bearer ' . $settings['api_key'], 'Origin' => $origin],
    ]);
    if (is_wp_error($response)) {
        return ['ok' => false, 'message' => sprintf('The service could not be reached at %s: %s', $settings['service_url'], $response->get_error_message())];
    }
    $code = (int) wp_remote_retrieve_response_code($response);
    $body = json_decode((string) wp_remote_retrieve_body($response), true);
    switch ($code) {
        case 200:
            $llm = is_array($body) && isset($body['llm']) ? (string) $body['llm'] : 'unknown';
            return ['ok' => true, 'message' => sprintf('Connected: the service accepts the widget key for instance %s (LLM: %s).', $settings['instance_id'], $llm)];
        case 401:
            return ['ok' => false, 'message' => 'The service refused the widget key: generate a new one under Administration > Assistants > CMS-B in the service and paste it here.'];
        case 403:
            return ['ok' => false, 'message' => sprintf('The service does not accept this site (%s) for instance %s: check the instance ID, and that the instance\'s site URL under Connectors > CMS-B is this site (or add %s under Assistants).', $origin, $settings['instance_id'], $origin)];
        case 404:
            return ['ok' => false, 'message' => sprintf('No assistant answers at %s: check the service URL.', $settings['service_url'])];
        case 429:
            return ['ok' => false, 'message' => 'The service is busy (too many requests for this instance): try again in a minute.'];
        default:
            return ['ok' => false, 'message' => sprintf('The service answered %d.', $code)];
    }
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
