<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

use Drupal\KernelTests\KernelTestBase;

/**
 * Both modules install, wire up and uninstall on real core without a word.
 *
 * @group service_widget_tools
 */
class ModuleInstallTest extends KernelTestBase {

  /**
   * {@inheritdoc}
   */
  protected static $modules = ['system', 'user', 'node', 'field', 'text', 'filter'];

  public function testInstallingAndUninstallingRaisesNothingFromTheModules(): void {
    $this->installEntitySchema('user');
    $this->installEntitySchema('node');
    $this->installSchema('user', ['users_data']);
    $this->installConfig(['system', 'filter', 'node']);
    $module_dir = dirname(__DIR__, 4);
    $raised = [];
    // Every error, warning, notice and deprecation whose call stack passes
    // through the modules' code, however it is handled afterwards.
    set_error_handler(function (int $level, string $message, string $file, int $line) use (&$raised, $module_dir) {
      foreach (debug_backtrace(DEBUG_BACKTRACE_IGNORE_ARGS) as $frame) {
        if (str_starts_with(realpath($frame['file'] ?? '') ?: '', $module_dir . '/') && !str_contains($frame['file'], '/tests/')) {
          $raised[] = "$level: $message ($file:$line)";
          break;
        }
      }
      return TRUE;
    });
    try {
      $installer = $this->container->get('module_installer');
      $installer->install(['service_widget', 'service_widget_tools']);
      $this->container = $this->container->get('kernel')->getContainer();
      $this->container->get('router.builder')->rebuild();
      foreach (['service_widget_tools.mcp_server', 'service_widget_tools.authentication.key', 'service_widget_tools.node_draft_form', 'service_widget_tools.refusal_subscriber'] as $id) {
        $this->assertIsObject($this->container->get($id), $id);
      }
      $this->assertSame(['site_info', 'node_search', 'node_create_draft_revision', 'node_update', 'node_publish'], array_column($this->container->get('service_widget_tools.tools')->definitions(), 'name'));
      $this->assertSame(['service_widget_tools_key'], $this->container->get('router.route_provider')->getRouteByName('service_widget_tools.mcp')->getOption('_auth'));
      $this->container->get('service_widget_tools.key')->generate();
      $this->container->get('module_installer')->uninstall(['service_widget_tools', 'service_widget']);
    }
    finally {
      restore_error_handler();
    }
    $this->assertSame([], $raised);
    $this->assertNull($this->container->get('state')->get('service_widget_tools.key_hash'), 'uninstalling deletes the key');
  }

}
