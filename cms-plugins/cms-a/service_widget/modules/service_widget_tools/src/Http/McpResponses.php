<?php

namespace Drupal\service_widget_tools\Http;

use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Response;

/**
 * The answers of /_mcp_tools: short plain-text refusals and JSON, uncached.
 *
 * Refusals are plain text rather than Drupal's themed error pages: the caller
 * is a program, and a refused request is no event for the site's log.
 */
final class McpResponses {

  /**
   * The refusal of a browser's request (it carries an Origin).
   */
  const BROWSER = 'Forbidden: _mcp_tools does not answer browsers.';

  /**
   * The refusal of a missing or wrong key.
   */
  const UNAUTHORIZED = 'Unauthorized: send the key from the Service Widget tools settings as "Authorization: Bearer <key>".';

  /**
   * The refusal of a right key when no active tools user is chosen.
   */
  const NO_TOOLS_USER = 'Forbidden: the key is right, but the tools user is not set up: choose an active user at /admin/config/services/service-widget/tools.';

  /**
   * The answer to every method but POST.
   */
  const POST_ONLY = 'Method Not Allowed: _mcp_tools answers POST only (no event stream, no sessions).';

  /**
   * A short plain-text answer.
   */
  public static function plain(int $status, string $message, array $headers = []): Response {
    return new Response($message, $status, ['Content-Type' => 'text/plain; charset=utf-8', 'Cache-Control' => 'no-store'] + $headers);
  }

  /**
   * The 401 answer, with its challenge.
   */
  public static function unauthorized(): Response {
    return self::plain(401, self::UNAUTHORIZED, ['WWW-Authenticate' => 'Bearer realm="_mcp_tools"']);
  }

  /**
   * The 405 answer.
   */
  public static function postOnly(): Response {
    return self::plain(405, self::POST_ONLY, ['Allow' => 'POST']);
  }

  /**
   * A JSON answer.
   */
  public static function json(array $data, int $status): JsonResponse {
    // The options are set before the data: the constructor would encode with
    // the default ones, which throw on invalid UTF-8 in a node's text.
    $response = new JsonResponse(NULL, $status, ['Cache-Control' => 'no-store']);
    $response->setEncodingOptions(JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE);
    return $response->setData($data);
  }

}
