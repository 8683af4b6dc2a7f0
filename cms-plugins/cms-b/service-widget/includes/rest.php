<?php
/**
 * REST under /wp-json/service/v1/: webhook subscriptions and the received list (manage_options),
 * and the signed receive endpoint.
 */

if (!defined('ABSPATH')) {
    exit;
}

function service_widget_register_routes(): void {
    register_rest_route('service/v1', '/webhooks', [
        ['methods' => 'GET', 'permission_callback' => 'service_widget_can_manage', 'callback' => 'service_widget_list_webhooks'],
        ['methods' => 'POST', 'permission_callback' => 'service_widget_can_manage', 'callback' => 'service_widget_create_webhook', 'args' => [
            'event' => ['required' => true, 'type' => 'string', 'pattern' => '^[a-z][a-z0-9_.]{1,63}$'],
        ]],
    ]);
    register_rest_route('service/v1', '/webhooks/(?P<id>[a-f0-9-]{36})', [
        'methods' => 'DELETE', 'permission_callback' => 'service_widget_can_manage', 'callback' => 'service_widget_delete_webhook',
    ]);
    register_rest_route('service/v1', '/received', [
        'methods' => 'GET', 'permission_callback' => 'service_widget_can_manage', 'callback' => 'service_widget_list_received',
    ]);
    // Signed by the Service: X-Service-Timestamp and X-Service-Signature = hex HMAC-SHA256 of "<timestamp>.<body>".
    register_rest_route('service/v1', '/receive', [
        'methods' => 'POST', 'permission_callback' => '__return_true', 'callback' => 'service_widget_receive',
    ]);
}

function service_widget_can_manage(): bool {
    return current_user_can('manage_options');
}

function service_widget_list_webhooks(): array {
    return array_values((array) get_option(SERVICE_WIDGET_WEBHOOKS, []));
}

function service_widget_create_webhook(WP_REST_Request $request): WP_REST_Response {
    $hooks = (array) get_option(SERVICE_WIDGET_WEBHOOKS, []);
    $id = wp_generate_uuid4();
    $hooks[$id] = ['id' => $id, 'event' => $request['event'], 'created' => gmdate('c')];
    update_option(SERVICE_WIDGET_WEBHOOKS, $hooks, false);
    return new WP_REST_Response($hooks[$id], 201);
}

function service_widget_delete_webhook(WP_REST_Request $request) {
    $hooks = (array) get_option(SERVICE_WIDGET_WEBHOOKS, []);
    if (!isset($hooks[$request['id']])) {
        return new WP_Error('service_widget_not_found', __('No such webhook.', 'service-widget'), ['status' => 404]);
    }
    unset($hooks[$request['id']]);
    update_option(SERVICE_WIDGET_WEBHOOKS, $hooks, false);
    return ['deleted' => true];
}

function service_widget_list_received(): array {
    // Earlier builds' marker rows refuse replays as they are; their details are moved in when first listed.
    service_widget_migrate_legacy_received();
    return service_widget_received_events();
}

function service_widget_receive(WP_REST_Request $request) {
    $secret = service_widget_settings()['webhook_secret'];
    $timestamp = (string) $request->get_header('x_service_timestamp');
    $signature = (string) $request->get_header('x_service_signature');
    $body = $request->get_body();
    if ($secret === '' || !ctype_digit($timestamp) || $signature === '') {
        return new WP_Error('service_widget_unsigned', __('Missing signature.', 'service-widget'), ['status' => 401]);
    }
    if (abs(time() - (int) $timestamp) > SERVICE_WIDGET_MAX_SKEW) {
        return new WP_Error('service_widget_stale', __('Timestamp too old.', 'service-widget'), ['status' => 401]);
    }
    if (!hash_equals(hash_hmac('sha256', $timestamp . '.' . $body, $secret), $signature)) {
        return new WP_Error('service_widget_bad_signature', __('Bad signature.', 'service-widget'), ['status' => 401]);
    }
    $event = json_decode($body, true);
    if (!is_array($event) || !isset($event['id'], $event['type']) || !is_string($event['id']) || !is_string($event['type'])
        || !preg_match('/^[A-Za-z0-9-]{1,64}$/', $event['id']) || !preg_match('/^[a-z][a-z0-9_.]{1,63}$/', $event['type'])) {
        return new WP_Error('service_widget_bad_event', __('Malformed event.', 'service-widget'), ['status' => 400]);
    }
    $data = isset($event['data']) && is_array($event['data']) ? $event['data'] : [];
    $post_id = isset($data['postId']) ? absint($data['postId']) : null;
    $recorded = service_widget_record_event($event['id'], $event['type'], $post_id);
    if ($recorded === null) {
        return new WP_Error('service_widget_not_recorded', __('The notification could not be recorded.', 'service-widget'), ['status' => 500]);
    }
    if (!$recorded) {
        return new WP_Error('service_widget_replay', __('Event already received.', 'service-widget'), ['status' => 409]);
    }
    service_widget_prune_events();
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
