<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\Core\Session\AccountInterface;

/**
 * One tool of _mcp_tools.
 *
 * Tools are services tagged "service_widget_tools.tool"; the tag's priority
 * orders tools/list (higher first). A module adds a tool by tagging a
 * service of its own.
 */
interface McpToolInterface {

  /**
   * The tool's name, as tools/call names it.
   */
  public function name(): string;

  /**
   * What the tool does, for the language model that calls it.
   */
  public function description(): string;

  /**
   * The JSON Schema of the tool's arguments (an object schema).
   */
  public function inputSchema(): array;

  /**
   * Runs the tool as the given account.
   *
   * @param array $arguments
   *   The tool's arguments (a decoded JSON object).
   * @param \Drupal\Core\Session\AccountInterface $account
   *   The tools user (also the current user while the tool runs).
   *
   * @return array
   *   The tool's result.
   *
   * @throws \Drupal\service_widget_tools\Mcp\ToolError
   *   When the tool refuses: bad arguments, a missing node, no draft, access.
   */
  public function call(array $arguments, AccountInterface $account): array;

}
