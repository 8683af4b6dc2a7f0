<?php
// Installs WordPress in the test docroot and prints what the tests need as JSON:
// an editor user with an application password. Run with the docroot as the working directory.
define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = getenv('WP_TEST_HOST');
require './wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

if (!is_blog_installed()) {
    wp_install('Service test site', 'admin', 'admin@example.test', false, '', wp_generate_password(24));
}
update_option('permalink_structure', '/%postname%/');
// Start without the sample post and page, so tests see only what they create.
foreach (get_posts(['post_type' => ['post', 'page'], 'post_status' => 'any', 'numberposts' => -1]) as $sample) {
    wp_delete_post($sample->ID, true);
}
update_option('siteurl', 'http://' . getenv('WP_TEST_HOST'));
update_option('home', 'http://' . getenv('WP_TEST_HOST'));

$user = get_user_by('login', 'editor');
$user_id = $user ? $user->ID : wp_insert_user(['user_login' => 'editor', 'user_pass' => wp_generate_password(24), 'user_email' => 'editor@example.test', 'role' => 'editor']);
if (is_wp_error($user_id)) { fwrite(STDERR, $user_id->get_error_message()); exit(1); }
[$password] = WP_Application_Passwords::create_new_application_password($user_id, ['name' => 'service-' . wp_generate_password(6, false)]);
echo json_encode(['username' => 'editor', 'applicationPassword' => $password, 'userId' => $user_id]);
