<?php

namespace Drupal\service_widget_tools;

use Drupal\Core\State\StateInterface;

/**
 * The bearer key of the _mcp_tools endpoint.
 *
 * Only the key's SHA-256 hash is stored, in the State API, so neither a
 * configuration export nor a database dump gives the key away. The key is
 * 256 random bits, so a plain hash cannot be reversed by guessing.
 */
class ToolsKey {

  /**
   * The state key holding the hash of the current key.
   */
  const STATE = 'service_widget_tools.key_hash';

  /**
   * Constructs the key store.
   *
   * @param \Drupal\Core\State\StateInterface $state
   *   The state service.
   */
  public function __construct(protected readonly StateInterface $state) {
  }

  /**
   * Replaces the key with a new random one.
   *
   * @return string
   *   The new key: shown once to the administrator, never stored.
   */
  public function generate(): string {
    $key = 'swt_' . rtrim(strtr(base64_encode(random_bytes(32)), '+/', '-_'), '=');
    $this->state->set(self::STATE, hash('sha256', $key));
    return $key;
  }

  /**
   * Whether a key has been generated.
   */
  public function isSet(): bool {
    return (string) $this->state->get(self::STATE, '') !== '';
  }

  /**
   * Compares a presented key with the stored one in constant time.
   *
   * @param string|null $presented
   *   The key from the request's Authorization header, if any.
   *
   * @return bool
   *   TRUE only when a key is set and the presented key is that key.
   */
  public function verify(?string $presented): bool {
    $stored = (string) $this->state->get(self::STATE, '');
    if ($stored === '' || $presented === NULL || $presented === '') {
      return FALSE;
    }
    return hash_equals($stored, hash('sha256', $presented));
  }

}
