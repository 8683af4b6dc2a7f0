<?php

namespace Drupal\service_widget_tools\Mcp;

/**
 * A tool's refusal, answered as a tool result with isError: TRUE.
 *
 * The message is for the caller (and the language model behind it): it says
 * what was wrong and, where it can, what to do instead.
 */
class ToolError extends \RuntimeException {
}
