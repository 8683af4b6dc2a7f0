<?php

namespace Drupal\service_widget_tools\Tool;

/**
 * The tools of _mcp_tools: every service tagged "service_widget_tools.tool".
 */
class ToolCollection {

  /**
   * The tools by name, in tools/list order.
   *
   * @var \Drupal\service_widget_tools\Tool\McpToolInterface[]
   */
  protected array $tools = [];

  /**
   * Adds a tool (the service collector calls this, highest priority first).
   */
  public function addTool(McpToolInterface $tool): void {
    $this->tools[$tool->name()] = $tool;
  }

  /**
   * The tool of this name, if there is one.
   */
  public function get(string $name): ?McpToolInterface {
    return $this->tools[$name] ?? NULL;
  }

  /**
   * The tools as tools/list describes them.
   */
  public function definitions(): array {
    return array_values(array_map(fn(McpToolInterface $tool) => [
      'name' => $tool->name(),
      'description' => $tool->description(),
      'inputSchema' => $tool->inputSchema(),
    ], $this->tools));
  }

}
