<?php
/**
 * Writes the Service repeats are made once: a REST write (POST, PUT, PATCH, DELETE) carrying an
 * Idempotency-Key header is recorded under that key, for the user who made it, with the answer it
 * got; the same key again (a call the Service made again after a crash) gets that answer back,
 * with Idempotent-Replayed: true, and writes nothing. A repeat that arrives while the first is
 * still being handled waits for it. Requests without the header are left alone.
 *
 * Each key is a row of the options table whose unique option_name decides who handles it first
 * (INSERT IGNORE, as service_widget_record_event does). Rows are kept a day.
 */

if (!defined('ABSPATH')) {
    exit;
}

/** The request of this PHP process that holds a key, with its row: its answer is recorded when it is dispatched. */
$GLOBALS['service_widget_idempotent_call'] = null;

/** What a key's row says, or null when it has none (or is not one of ours). */
function service_widget_call_row(string $name): ?array {
    global $wpdb;
    $value = $wpdb->get_var($wpdb->prepare("SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", $name));
    $row = $value === null ? null : maybe_unserialize($value);
    return is_array($row) && isset($row['state'], $row['route'], $row['at']) ? $row : null;
}

/** Claims a key's row for this request; true when this request now handles the key. */
function service_widget_claim_call(string $name, array $pending, ?array $abandoned): bool {
    global $wpdb;
    if ($abandoned === null) {
        return $wpdb->query($wpdb->prepare(
            "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')",
            $name,
            maybe_serialize($pending)
        )) === 1;
    }
    // A row left pending by a request that died: taken over only as it was read, by one request.
    return $wpdb->query($wpdb->prepare(
        "UPDATE {$wpdb->options} SET option_value = %s WHERE option_name = %s AND option_value = %s",
        maybe_serialize($pending),
        $name,
        maybe_serialize($abandoned)
    )) === 1;
}

/**
 * rest_pre_dispatch: a keyed write handled before (its recorded answer), one being handled now
 * (waits for it), or a new one (claims the key and lets WordPress dispatch it).
 *
 * @param mixed $result What an earlier filter answered (null: nothing yet).
 */
function service_widget_idempotent_start($result, WP_REST_Server $server, WP_REST_Request $request) {
    $key = (string) $request->get_header('idempotency_key');
    if ($result !== null || $key === '' || !in_array($request->get_method(), ['POST', 'PUT', 'PATCH', 'DELETE'], true)) {
        return $result;
    }
    if (!preg_match('/^[A-Za-z0-9._:-]{8,200}$/', $key)) {
        return new WP_Error('service_widget_bad_idempotency_key', __('The Idempotency-Key must be 8 to 200 letters, digits, dots, colons, underscores or dashes.', 'service-widget'), ['status' => 400]);
    }
    $user = get_current_user_id();
    if ($user === 0) {
        return $result;
    }
    $name = SERVICE_WIDGET_CALL_PREFIX . md5($user . '|' . $key);
    $route = $request->get_method() . ' ' . $request->get_route();
    $deadline = microtime(true) + SERVICE_WIDGET_CALL_WAIT_SECONDS;
    $abandoned = null;
    for (;;) {
        $pending = ['state' => 'pending', 'route' => $route, 'at' => time()];
        if (service_widget_claim_call($name, $pending, $abandoned)) {
            service_widget_prune_calls();
            $GLOBALS['service_widget_idempotent_call'] = ['name' => $name, 'request' => $request, 'pending' => $pending];
            return $result;
        }
        $row = service_widget_call_row($name);
        $abandoned = null;
        if ($row === null) {
            continue;
        }
        if ($row['route'] !== $route) {
            return new WP_Error('service_widget_idempotency_mismatch', __('This Idempotency-Key was used for another request.', 'service-widget'), ['status' => 422]);
        }
        if ($row['state'] === 'done') {
            $replayed = new WP_REST_Response($row['data'] ?? null, (int) ($row['status'] ?? 200));
            $replayed->header('Idempotent-Replayed', 'true');
            return $replayed;
        }
        if (time() - (int) $row['at'] > SERVICE_WIDGET_CALL_ABANDONED_SECONDS) {
            $abandoned = $row;
            continue;
        }
        if (microtime(true) > $deadline) {
            return new WP_Error('service_widget_call_in_progress', __('A request with this Idempotency-Key is still being handled: try again shortly.', 'service-widget'), ['status' => 409]);
        }
        usleep(200000);
    }
}

/**
 * rest_post_dispatch: records the answer of the keyed write this request handled; a refused or
 * failed one frees the key instead (nothing was written, so a repeat may try again).
 */
function service_widget_idempotent_finish($response, WP_REST_Server $server, WP_REST_Request $request) {
    global $wpdb;
    $call = $GLOBALS['service_widget_idempotent_call'];
    if (!is_array($call) || $call['request'] !== $request) {
        return $response;
    }
    $GLOBALS['service_widget_idempotent_call'] = null;
    $response = rest_ensure_response($response);
    if ($response instanceof WP_Error || $response->get_status() >= 400) {
        $wpdb->delete($wpdb->options, ['option_name' => $call['name'], 'option_value' => maybe_serialize($call['pending'])]);
        return $response;
    }
    $done = ['state' => 'done', 'route' => $call['pending']['route'], 'at' => time(), 'status' => $response->get_status(), 'data' => $response->get_data()];
    $wpdb->update($wpdb->options, ['option_value' => maybe_serialize($done)], ['option_name' => $call['name']]);
    return $response;
}

/** Deletes key rows older than SERVICE_WIDGET_CALL_KEPT_SECONDS, a batch at a time, oldest first. */
function service_widget_prune_calls(int $batch = 50): void {
    global $wpdb;
    $rows = $wpdb->get_results($wpdb->prepare(
        "SELECT option_name, option_value FROM {$wpdb->options} WHERE option_name LIKE %s ORDER BY option_id ASC LIMIT %d",
        $wpdb->esc_like(SERVICE_WIDGET_CALL_PREFIX) . '%',
        $batch
    ));
    foreach ($rows as $row) {
        $call = maybe_unserialize($row->option_value);
        if (!is_array($call) || !isset($call['at']) || time() - (int) $call['at'] > SERVICE_WIDGET_CALL_KEPT_SECONDS) {
            $wpdb->delete($wpdb->options, ['option_name' => $row->option_name]);
        }
    }
}
