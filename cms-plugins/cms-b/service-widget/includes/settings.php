<?php
/**
 * Settings › Service Widget, through the Settings API (nonce and capability checks included),
 * and its "Test connection" button.
 */

if (!defined('ABSPATH')) {
    exit;
}

function service_widget_settings(): array {
    $defaults = ['service_url' => '', 'api_key' => '', 'instance_id' => '', 'webhook_secret' => ''];
    return array_merge($defaults, (array) get_option(SERVICE_WIDGET_OPTION, []));
}

function service_widget_add_settings_page(): void {
    add_options_page(
        __('Service Widget', 'service-widget'),
        __('Service Widget', 'service-widget'),
        'manage_options',
        'service-widget',
        'service_widget_render_settings'
    );
}

function service_widget_register_setting(): void {
    register_setting('service_widget', SERVICE_WIDGET_OPTION, [
        'type' => 'array',
        'sanitize_callback' => 'service_widget_sanitize',
        'default' => [],
    ]);
}

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

/**
 * One labelled input of the settings form, with its help text.
 *
 * @param array $field name, label, type, value, help; optional placeholder, pattern, maxlength.
 */
function service_widget_render_field(array $field): void {
    $field += ['placeholder' => '', 'pattern' => '', 'maxlength' => 500];
    printf(
        '<p><label for="service-widget-%1$s">%2$s</label><br><input id="service-widget-%1$s" name="%3$s[%1$s]" type="%4$s" value="%5$s" placeholder="%6$s" maxlength="%7$d"%8$s aria-describedby="service-widget-%1$s-help" class="regular-text" autocomplete="off"><br><span id="service-widget-%1$s-help" class="description">%9$s</span></p>',
        esc_attr($field['name']), esc_html($field['label']), esc_attr(SERVICE_WIDGET_OPTION), esc_attr($field['type']), esc_attr($field['value']), esc_attr($field['placeholder']), (int) $field['maxlength'],
        $field['pattern'] === '' ? '' : ' pattern="' . esc_attr($field['pattern']) . '"',
        esc_html($field['help'])
    );
}

function service_widget_render_settings(): void {
    if (!current_user_can('manage_options')) {
        return;
    }
    $settings = service_widget_settings();
    echo '<div class="wrap"><h1>' . esc_html__('Service Widget', 'service-widget') . '</h1>';
    service_widget_render_test_result();
    echo '<p>' . esc_html__('The assistant in the post editor is served by the service. Each value below comes from the service’s administration pages.', 'service-widget') . '</p>';
    echo '<form method="post" action="options.php">';
    settings_fields('service_widget');
    service_widget_render_field([
        'name' => 'service_url',
        'label' => __('Service URL', 'service-widget'),
        'type' => 'url',
        'value' => $settings['service_url'],
        'help' => __('The address you open the service at, for example https://agents.example.com.', 'service-widget'),
    ]);
    // The same name the service uses for it (Administration > Assistants).
    service_widget_render_field([
        'name' => 'api_key',
        'label' => __('Widget key', 'service-widget'),
        'type' => 'password',
        'value' => '',
        'help' => __('In the service: Administration > Assistants > CMS-B, "Generate key" for this site\'s instance; it is shown once. Stored here and only sent to the service.', 'service-widget'),
        'placeholder' => $settings['api_key'] ? __('set — type to replace', 'service-widget') : __('not set', 'service-widget'),
    ]);
    // The service's connector instance ids: lower-case letters, digits and hyphens (written so the v-flag regex browsers use accepts it).
    service_widget_render_field([
        'name' => 'instance_id',
        'label' => __('Instance ID', 'service-widget'),
        'type' => 'text',
        'value' => $settings['instance_id'],
        'help' => __('In the service: Administration > Connectors > CMS-B, the ID of the instance registered for this site.', 'service-widget'),
        'pattern' => '[a-z0-9](?:[a-z0-9]|-)*',
        'maxlength' => 63,
    ]);
    service_widget_render_field([
        'name' => 'webhook_secret',
        'label' => __('Webhook secret (optional)', 'service-widget'),
        'type' => 'password',
        'value' => '',
        'help' => __('In the service: the same instance under Connectors > CMS-B. With it the service tells this site about the assistant\'s edits.', 'service-widget'),
        'placeholder' => $settings['webhook_secret'] ? __('set — type to replace', 'service-widget') : __('not set', 'service-widget'),
    ]);
    submit_button();
    echo '</form>';
    // Checked from this server, as the widget's requests will be: the service URL, the key and this site's origin.
    echo '<form method="post" action="' . esc_url(admin_url('admin-post.php')) . '">';
    wp_nonce_field('service_widget_test');
    echo '<input type="hidden" name="action" value="service_widget_test">';
    submit_button(__('Test connection', 'service-widget'), 'secondary', 'service-widget-test', false);
    echo ' <span class="description">' . esc_html__('Uses the saved settings.', 'service-widget') . '</span></form></div>';
}

/** The last "Test connection" result of this user, once. */
function service_widget_render_test_result(): void {
    $key = SERVICE_WIDGET_TEST_TRANSIENT_PREFIX . get_current_user_id();
    $result = get_transient($key);
    if (!is_array($result)) {
        return;
    }
    delete_transient($key);
    printf('<div class="notice notice-%s" role="status"><p>%s</p></div>', $result['ok'] ? 'success' : 'error', esc_html($result['message']));
}

function service_widget_handle_test_connection(): void {
    if (!current_user_can('manage_options')) {
        wp_die(esc_html__('Sorry, you are not allowed to test the connection.', 'service-widget'), 403);
    }
    check_admin_referer('service_widget_test');
    set_transient(SERVICE_WIDGET_TEST_TRANSIENT_PREFIX . get_current_user_id(), service_widget_test_connection(service_widget_settings()), 300);
    wp_safe_redirect(admin_url('options-general.php?page=service-widget'));
    exit;
}

/** Asks the service's status route with the saved settings and this site's origin; the answer in plain words. */
function service_widget_test_connection(array $settings): array {
    if ($settings['service_url'] === '' || $settings['api_key'] === '' || $settings['instance_id'] === '') {
        return ['ok' => false, 'message' => __('Fill in and save the service URL, the widget key and the instance ID first.', 'service-widget')];
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
        /* translators: 1: the service URL, 2: the error, as WordPress's HTTP API reports it. */
        return ['ok' => false, 'message' => sprintf(__('The service could not be reached at %1$s: %2$s', 'service-widget'), $settings['service_url'], $response->get_error_message())];
    }
    $code = (int) wp_remote_retrieve_response_code($response);
    $body = json_decode((string) wp_remote_retrieve_body($response), true);
    switch ($code) {
        case 200:
            $llm = is_array($body) && isset($body['llm']) ? (string) $body['llm'] : __('unknown', 'service-widget');
            /* translators: 1: the instance ID, 2: the name of the language model the service uses. */
            return ['ok' => true, 'message' => sprintf(__('Connected: the service accepts the widget key for instance %1$s (LLM: %2$s).', 'service-widget'), $settings['instance_id'], $llm)];
        case 401:
            return ['ok' => false, 'message' => __('The service refused the widget key: generate a new one under Administration > Assistants > CMS-B in the service and paste it here.', 'service-widget')];
        case 403:
            /* translators: 1: this site's origin (scheme, host and port), 2: the instance ID. */
            return ['ok' => false, 'message' => sprintf(__('The service does not accept this site (%1$s) for instance %2$s: check the instance ID, and that the instance\'s site URL under Connectors > CMS-B is this site (or add %1$s under Assistants).', 'service-widget'), $origin, $settings['instance_id'])];
        case 404:
            /* translators: %s: the service URL. */
            return ['ok' => false, 'message' => sprintf(__('No assistant answers at %s: check the service URL.', 'service-widget'), $settings['service_url'])];
        case 429:
            return ['ok' => false, 'message' => __('The service is busy (too many requests for this instance): try again in a minute.', 'service-widget')];
        default:
            /* translators: %d: the HTTP status code. */
            return ['ok' => false, 'message' => sprintf(__('The service answered %d.', 'service-widget'), $code)];
    }
}
