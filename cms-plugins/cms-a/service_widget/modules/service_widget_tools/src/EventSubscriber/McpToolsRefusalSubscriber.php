<?php

namespace Drupal\service_widget_tools\EventSubscriber;

use Drupal\service_widget_tools\Authentication\Provider\ToolsKeyAuthentication;
use Drupal\service_widget_tools\Http\McpResponses;
use Symfony\Component\EventDispatcher\EventSubscriberInterface;
use Symfony\Component\HttpKernel\Event\ExceptionEvent;
use Symfony\Component\HttpKernel\Exception\AccessDeniedHttpException;
use Symfony\Component\HttpKernel\Exception\MethodNotAllowedHttpException;
use Symfony\Component\HttpKernel\Exception\UnauthorizedHttpException;
use Symfony\Component\HttpKernel\KernelEvents;

/**
 * Answers the refusals of /_mcp_tools in plain text, and logs none of them.
 *
 * Drupal refuses a request the route's authentication or access requirement
 * does not let through by throwing; this subscriber runs before core's
 * authentication challenge (75) and exception logger (50) and answers:
 * a browser's request (an Origin header) 403, whatever its key; a right key
 * without a tools user 403, saying what to set up; any other method than
 * POST, GET or DELETE 405; everything else 401 with a Bearer challenge.
 */
class McpToolsRefusalSubscriber implements EventSubscriberInterface {

  /**
   * {@inheritdoc}
   */
  public static function getSubscribedEvents(): array {
    return [KernelEvents::EXCEPTION => ['onException', 100]];
  }

  /**
   * Replaces Drupal's error page for a refused request to /_mcp_tools.
   */
  public function onException(ExceptionEvent $event): void {
    $request = $event->getRequest();
    if (!$event->isMainRequest() || $request->getPathInfo() !== ToolsKeyAuthentication::PATH) {
      return;
    }
    $exception = $event->getThrowable();
    if (!$exception instanceof AccessDeniedHttpException && !$exception instanceof UnauthorizedHttpException && !$exception instanceof MethodNotAllowedHttpException) {
      return;
    }
    if ($request->headers->has('Origin')) {
      $event->setResponse(McpResponses::plain(403, McpResponses::BROWSER));
    }
    elseif ($exception instanceof MethodNotAllowedHttpException) {
      $event->setResponse(McpResponses::postOnly());
    }
    elseif ($request->attributes->get(ToolsKeyAuthentication::NO_TOOLS_USER)) {
      $event->setResponse(McpResponses::plain(403, McpResponses::NO_TOOLS_USER));
    }
    else {
      $event->setResponse(McpResponses::unauthorized());
    }
  }

}
