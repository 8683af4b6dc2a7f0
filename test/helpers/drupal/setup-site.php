<?php

/**
 * @file
 * Makes a fresh copy of the installed standard site into the site the tests need: the modules on
 * (Content Moderation's editorial workflow on articles when asked), the tools user and its key,
 * an editor who may use the widget, and the contract fixture's nodes. Prints what the tests bind:
 * the node id of each fixture name, the key, the users' passwords.
 */

use Drupal\node\Entity\Node;
use Drupal\user\Entity\Role;
use Drupal\user\Entity\User;
use Drupal\workflows\Entity\Workflow;
use Symfony\Component\HttpFoundation\Response;

require __DIR__ . '/boot.php';

$moderated = $input['moderation'] === TRUE;
\Drupal::service('module_installer')->install(array_merge(['service_widget', 'service_widget_tools', 'service_widget_test'], $moderated ? ['content_moderation'] : []));
// Cron on a page request would reach for drupal.org (unreachable here) and log the failure.
\Drupal::service('module_installer')->uninstall(['automated_cron']);

if ($moderated) {
  $workflow = Workflow::load('editorial');
  $workflow->getTypePlugin()->addEntityTypeAndBundle('node', 'article');
  $workflow->save();
}

$grant = static function (string $id, string $label, array $permissions): void {
  $role = Role::load($id) ?? Role::create(['id' => $id, 'label' => $label]);
  foreach ($permissions as $permission) {
    $role->grantPermission($permission);
  }
  $role->save();
};
$password = static fn() => bin2hex(random_bytes(12));
$user = static function (string $name, string $pass, array $roles): User {
  $account = User::create(['name' => $name, 'mail' => "$name@drupal.test", 'pass' => $pass, 'status' => 1, 'roles' => $roles]);
  $account->save();
  return $account;
};

// The tools user, with exactly the permissions docs/drupal-module.md tells a site owner to grant,
// by the titles the Permissions page shows.
$titles = [];
foreach (\Drupal::service('user.permissions')->getPermissions() as $name => $permission) {
  $titles[trim(strip_tags((string) $permission['title']))] = $name;
}
$unknown = array_diff($input['toolsPermissions'], array_keys($titles));
if ($unknown) {
  throw new \RuntimeException('docs/drupal-module.md names permissions this site does not have: ' . implode(', ', $unknown));
}
$grant('assistant', 'Assistant', array_map(static fn(string $title) => $titles[$title], $input['toolsPermissions']));
$assistant = $user('assistant', $password(), ['assistant']);
\Drupal::configFactory()->getEditable('service_widget_tools.settings')->set('tools_uid', (int) $assistant->id())->save();
$tools_key = \Drupal::service('service_widget_tools.key')->generate();

// An editor of the standard profile who may use the widget on any article.
// With Content Moderation, editing a published node takes a transition to a draft.
$grant('content_editor', 'Content editor', array_merge(['use service widget', 'edit any article content'], $moderated ? ['use editorial transition create_new_draft', 'view latest version'] : []));
$editor_pass = $password();
$editor = $user('editor', $editor_pass, ['content_editor']);
$admin_pass = $password();
User::load(1)->setPassword($admin_pass)->save();

// The fixture's nodes, by the editor; images as public files.
$nids = [];
$locked = [];
foreach ($input['seed'] as $item) {
  $values = [
    'type' => $item['type'],
    'title' => $item['title'],
    'uid' => $editor->id(),
    'status' => 1,
    'body' => ['value' => $item['fields']['body'], 'summary' => $item['fields']['summary'], 'format' => 'basic_html'],
  ];
  foreach ($item['fields']['media'] ?? [] as $image) {
    $name = basename(parse_url($image['url'], PHP_URL_PATH));
    $png = imagecreatetruecolor(2, 2);
    ob_start();
    imagepng($png);
    $file = \Drupal::service('file.repository')->writeData(ob_get_clean(), "public://$name");
    $values['field_image'][] = ['target_id' => $file->id(), 'alt' => $image['alt'] ?? ''];
  }
  $node = Node::create($values);
  if ($moderated) {
    $node->set('moderation_state', 'published');
  }
  $node->save();
  $nids[$item['nid']] = (string) $node->id();
  if (($item['toolsUserMayEditFields'] ?? TRUE) === FALSE) {
    $locked[] = (int) $node->id();
  }
}
\Drupal::state()->set('service_widget_test.locked_nids', $locked);

// Ending the request runs what Drupal defers to it: the router rebuild Content Moderation asked for.
$kernel->terminate($request, new Response());

echo json_encode([
  'nids' => $nids,
  'toolsKey' => $tools_key,
  'siteName' => (string) \Drupal::config('system.site')->get('name'),
  'users' => ['editor' => ['name' => 'editor', 'pass' => $editor_pass], 'admin' => ['name' => 'admin', 'pass' => $admin_pass]],
], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
