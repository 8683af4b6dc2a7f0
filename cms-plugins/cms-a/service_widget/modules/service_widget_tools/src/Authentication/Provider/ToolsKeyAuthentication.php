<?php

namespace Drupal\service_widget_tools\Authentication\Provider;

use Drupal\Core\Authentication\AuthenticationProviderInterface;
use Drupal\Core\Config\ConfigFactoryInterface;
use Drupal\Core\Entity\EntityTypeManagerInterface;
use Drupal\Core\Session\AccountInterface;
use Drupal\service_widget_tools\ToolsKey;
use Symfony\Component\HttpFoundation\Request;

/**
 * The bearer key of /_mcp_tools, as a Drupal authentication provider.
 *
 * It applies only to server-side requests to /_mcp_tools that carry
 * "Authorization: Bearer": a browser's request (it sends an Origin) is left
 * to the refusal subscriber, which answers 403 without looking at any key. A
 * key that matches (compared in constant time) authenticates the request as
 * the tools user the administrator chose; anything else leaves it anonymous,
 * which the route's access requirement refuses with 401.
 *
 * @see \Drupal\service_widget_tools\EventSubscriber\McpToolsRefusalSubscriber
 */
class ToolsKeyAuthentication implements AuthenticationProviderInterface {

  /**
   * The path the provider applies to.
   */
  const PATH = '/_mcp_tools';

  /**
   * The request attribute set when the key is right but no user is set up.
   */
  const NO_TOOLS_USER = '_service_widget_tools_no_user';

  /**
   * Constructs the provider.
   *
   * @param \Drupal\service_widget_tools\ToolsKey $key
   *   The endpoint's key.
   * @param \Drupal\Core\Config\ConfigFactoryInterface $configFactory
   *   The config factory.
   * @param \Drupal\Core\Entity\EntityTypeManagerInterface $entityTypeManager
   *   The entity type manager.
   */
  public function __construct(
    protected readonly ToolsKey $key,
    protected readonly ConfigFactoryInterface $configFactory,
    protected readonly EntityTypeManagerInterface $entityTypeManager,
  ) {
  }

  /**
   * {@inheritdoc}
   */
  public function applies(Request $request) {
    return $request->getPathInfo() === self::PATH && !$request->headers->has('Origin') && static::bearer($request) !== NULL;
  }

  /**
   * {@inheritdoc}
   */
  public function authenticate(Request $request) {
    if (!$this->key->verify(static::bearer($request))) {
      return NULL;
    }
    $user = $this->toolsUser();
    if ($user === NULL) {
      $request->attributes->set(self::NO_TOOLS_USER, TRUE);
    }
    return $user;
  }

  /**
   * The bearer token of a request, if it has one.
   */
  public static function bearer(Request $request): ?string {
    $header = (string) $request->headers->get('Authorization');
    return preg_match('/^Bearer +(\S+)$/i', $header, $match) ? $match[1] : NULL;
  }

  /**
   * The active user the tools act as, if the administrator chose one.
   */
  protected function toolsUser(): ?AccountInterface {
    $uid = (int) $this->configFactory->get('service_widget_tools.settings')->get('tools_uid');
    $user = $uid > 0 ? $this->entityTypeManager->getStorage('user')->load($uid) : NULL;
    return $user !== NULL && $user->isActive() ? $user : NULL;
  }

}
