<?php

namespace Drupal\service_widget_tools\Tool;

use Drupal\service_widget_tools\Mcp\ToolError;

/**
 * What the tools share: their schema's shape and argument checks.
 */
abstract class ToolBase implements McpToolInterface {

  /**
   * The schema of a node id argument.
   */
  const NID = ['type' => 'string', 'description' => 'The node id.'];

  /**
   * An object schema (empty properties are a JSON object, as JSON Schema
   * wants them).
   */
  protected static function objectSchema(array $properties, array $required = []): array {
    return ['type' => 'object', 'properties' => $properties ?: new \stdClass()] + ($required ? ['required' => $required] : []);
  }

  /**
   * An optional string argument; a number is taken as its decimal string.
   */
  protected static function optionalString(array $arguments, string $name): ?string {
    $value = $arguments[$name] ?? NULL;
    if ($value === NULL || is_string($value)) {
      return $value;
    }
    if (is_int($value)) {
      return (string) $value;
    }
    throw new ToolError("$name must be a string.");
  }

}
