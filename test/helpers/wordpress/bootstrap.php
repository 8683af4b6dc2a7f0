<?php
// Installs WordPress in the test docroot and prints what the tests need as JSON:
// an editor user with an application password. Run with the docroot as the working directory.
define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = getenv('WP_TEST_HOST');
require './wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

$admin_password = getenv('WP_ADMIN_PASSWORD') ?: wp_generate_password(24);
$editor_password = getenv('WP_EDITOR_PASSWORD') ?: wp_generate_password(24);
if (!is_blog_installed()) {
    wp_install('Service test site', 'admin', 'admin@example.test', false, '', $admin_password);
}
wp_set_password($admin_password, get_user_by('login', 'admin')->ID);
// No block-editor welcome guide: it is a modal that hides the rest of the page.
global $wpdb;
foreach (['admin', 'editor'] as $login) {
    $u = get_user_by('login', $login);
    if ($u) {
        update_user_meta($u->ID, $wpdb->get_blog_prefix() . 'persisted_preferences', ['core/edit-post' => ['welcomeGuide' => false], '_modified' => gmdate('c')]);
    }
}
foreach (array_filter(explode(',', (string) getenv('WP_ACTIVATE_PLUGINS'))) as $plugin) {
    $result = activate_plugin($plugin);
    if (is_wp_error($result)) { fwrite(STDERR, $result->get_error_message()); exit(1); }
}
update_option('permalink_structure', '/%postname%/');
// Start without the sample post and page, so tests see only what they create.
foreach (get_posts(['post_type' => ['post', 'page'], 'post_status' => 'any', 'numberposts' => -1]) as $sample) {
    wp_delete_post($sample->ID, true);
}
update_option('siteurl', 'http://' . getenv('WP_TEST_HOST'));
update_option('home', 'http://' . getenv('WP_TEST_HOST'));

$user = get_user_by('login', 'editor');
$user_id = $user ? $user->ID : wp_insert_user(['user_login' => 'editor', 'user_pass' => $editor_password, 'user_email' => 'editor@example.test', 'role' => 'editor']);
if (is_wp_error($user_id)) { fwrite(STDERR, $user_id->get_error_message()); exit(1); }
wp_set_password($editor_password, $user_id);
update_user_meta($user_id, $wpdb->get_blog_prefix() . 'persisted_preferences', ['core/edit-post' => ['welcomeGuide' => false], '_modified' => gmdate('c')]);
[$password] = WP_Application_Passwords::create_new_application_password($user_id, ['name' => 'service-' . wp_generate_password(6, false)]);
[$admin_app] = WP_Application_Passwords::create_new_application_password(get_user_by('login', 'admin')->ID, ['name' => 'tests-' . wp_generate_password(6, false)]);
echo json_encode(['username' => 'editor', 'applicationPassword' => $password, 'userId' => $user_id, 'adminApplicationPassword' => $admin_app]);
