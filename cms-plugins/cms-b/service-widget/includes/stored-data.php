<?php
/**
 * Everything the plugin keeps in the database, and how it is removed (see uninstall.php).
 *
 * Functions and constants only, no hooks: uninstall.php loads this file while the plugin is inactive.
 */

if (!defined('ABSPATH')) {
    exit;
}

const SERVICE_WIDGET_OPTION = 'service_widget_settings';
const SERVICE_WIDGET_WEBHOOKS = 'service_widget_webhooks';
/** One option per received notification: this prefix and the md5 of the event id. */
const SERVICE_WIDGET_EVENT_PREFIX = 'service_widget_event_';
/** Where earlier builds kept the list of received notifications, in one option (moved to per-event rows). */
const SERVICE_WIDGET_LEGACY_RECEIVED = 'service_widget_received';
/** "Test connection" results, per user: this prefix and the user id. */
const SERVICE_WIDGET_TEST_TRANSIENT_PREFIX = 'service_widget_test_';
const SERVICE_WIDGET_MAX_SKEW = 300;
/** Received notifications kept (and listed by GET /received). */
const SERVICE_WIDGET_KEPT_EVENTS = 500;
/** One option per Idempotency-Key of a REST write (includes/idempotency.php): this prefix and the md5 of user and key. */
const SERVICE_WIDGET_CALL_PREFIX = 'service_widget_call_';
/** A key's answer is kept this long: the Service makes a call again within minutes of a crash. */
const SERVICE_WIDGET_CALL_KEPT_SECONDS = 86400;
/** A key whose request has not answered after this long is taken over by its next repeat (the request died). */
const SERVICE_WIDGET_CALL_ABANDONED_SECONDS = 120;
/** A repeat that finds its key being handled waits this long for the answer, then answers 409. */
const SERVICE_WIDGET_CALL_WAIT_SECONDS = 25;

/** The LIKE pattern of every received-notification row. */
function service_widget_event_rows_like(): string {
    global $wpdb;
    return $wpdb->esc_like(SERVICE_WIDGET_EVENT_PREFIX) . '%';
}

/**
 * Records a verified notification, once per event id.
 *
 * The row's unique option_name decides: INSERT IGNORE inserts it or, when the id was received
 * before (or is being received by a concurrent request), inserts nothing. add_option() cannot
 * decide this: it reads first and then upserts, so two concurrent deliveries can both pass.
 *
 * @return bool|null True when recorded, false for an id already received, null when the database failed.
 */
function service_widget_record_event(string $id, string $type, ?int $post_id): ?bool {
    global $wpdb;
    $record = ['id' => $id, 'type' => $type, 'postId' => $post_id, 'at' => gmdate('c')];
    $inserted = $wpdb->query($wpdb->prepare(
        "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')",
        SERVICE_WIDGET_EVENT_PREFIX . md5($id),
        maybe_serialize($record)
    ));
    if ($inserted === false) {
        return null;
    }
    return $inserted === 1;
}

/** The newest received notifications first, at most SERVICE_WIDGET_KEPT_EVENTS. */
function service_widget_received_events(): array {
    global $wpdb;
    $values = $wpdb->get_col($wpdb->prepare(
        "SELECT option_value FROM {$wpdb->options} WHERE option_name LIKE %s ORDER BY option_id DESC LIMIT %d",
        service_widget_event_rows_like(),
        SERVICE_WIDGET_KEPT_EVENTS
    ));
    $events = [];
    foreach ($values as $value) {
        $event = maybe_unserialize($value);
        if (is_array($event) && isset($event['id'], $event['type'], $event['at'])) {
            $events[] = ['id' => (string) $event['id'], 'type' => $event['type'], 'postId' => $event['postId'] ?? null, 'at' => $event['at']];
        }
    }
    return $events;
}

/**
 * Deletes rows beyond the newest SERVICE_WIDGET_KEPT_EVENTS, a batch at a time, but only those
 * received more than twice the timestamp window ago: until then a replay of the event could
 * still carry a valid timestamp, and its row is what refuses it.
 */
function service_widget_prune_events(int $batch = 100): void {
    global $wpdb;
    $rows = $wpdb->get_results($wpdb->prepare(
        "SELECT option_name, option_value FROM {$wpdb->options} WHERE option_name LIKE %s ORDER BY option_id DESC LIMIT %d, %d",
        service_widget_event_rows_like(),
        SERVICE_WIDGET_KEPT_EVENTS,
        $batch
    ));
    foreach ($rows as $row) {
        $event = maybe_unserialize($row->option_value);
        $at = is_array($event) && isset($event['at']) ? strtotime((string) $event['at']) : false;
        if ($at === false || time() - $at > 2 * SERVICE_WIDGET_MAX_SKEW) {
            delete_option($row->option_name);
        }
    }
}

/**
 * Earlier builds kept the received list in one option beside a bare marker row per event: the details
 * move into the event rows (each marker gets its record) and the list option goes.
 */
function service_widget_migrate_legacy_received(): void {
    $legacy = get_option(SERVICE_WIDGET_LEGACY_RECEIVED, null);
    if (!is_array($legacy)) {
        return;
    }
    foreach ($legacy as $id => $entry) {
        if (is_array($entry) && isset($entry['type'], $entry['at'])) {
            $record = ['id' => (string) $id, 'type' => $entry['type'], 'postId' => $entry['postId'] ?? null, 'at' => $entry['at']];
            update_option(SERVICE_WIDGET_EVENT_PREFIX . md5((string) $id), $record, false);
        }
    }
    delete_option(SERVICE_WIDGET_LEGACY_RECEIVED);
}

/** Removes every option, row and transient the plugin created on the current site. */
function service_widget_delete_stored_data(): void {
    global $wpdb;
    delete_option(SERVICE_WIDGET_OPTION);
    delete_option(SERVICE_WIDGET_WEBHOOKS);
    delete_option(SERVICE_WIDGET_LEGACY_RECEIVED);
    // Through the transient API first, so a persistent object cache forgets them too.
    foreach (get_users(['capability' => 'manage_options', 'fields' => 'ID']) as $user_id) {
        delete_transient(SERVICE_WIDGET_TEST_TRANSIENT_PREFIX . $user_id);
    }
    // Then whatever rows are left: every event row and Idempotency-Key row, and transients of users no longer administrators.
    foreach ([SERVICE_WIDGET_EVENT_PREFIX, SERVICE_WIDGET_CALL_PREFIX, '_transient_' . SERVICE_WIDGET_TEST_TRANSIENT_PREFIX, '_transient_timeout_' . SERVICE_WIDGET_TEST_TRANSIENT_PREFIX] as $prefix) {
        $wpdb->query($wpdb->prepare("DELETE FROM {$wpdb->options} WHERE option_name LIKE %s", $wpdb->esc_like($prefix) . '%'));
    }
}
