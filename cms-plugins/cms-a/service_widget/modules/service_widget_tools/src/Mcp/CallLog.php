<?php

namespace Drupal\service_widget_tools\Mcp;

use Drupal\Component\Datetime\TimeInterface;
use Drupal\Core\Database\Connection;
use Drupal\Core\Database\IntegrityConstraintViolationException;

/**
 * Tool calls made once per key: a tools/call carrying an idempotency key.
 *
 * The Service sends `_meta["service/idempotency-key"]` with each write of an
 * agent's tool call; the same key again (a call made again after a crash)
 * gets the first call's result and changes nothing. The table's primary key
 * decides which request handles a key first; a repeat that arrives while it
 * is being handled waits for its result.
 */
class CallLog {

  /**
   * The table of keyed calls.
   */
  const TABLE = 'service_widget_tools_call';

  /**
   * A key whose call has not finished after this many seconds is taken over.
   */
  const ABANDONED_SECONDS = 120;

  /**
   * A repeat waits this many seconds for the first call's result.
   */
  const WAIT_SECONDS = 25;

  /**
   * Results are kept this many seconds (cron deletes older rows).
   */
  const KEPT_SECONDS = 86400;

  /**
   * Constructs the log.
   *
   * @param \Drupal\Core\Database\Connection $database
   *   The site's database.
   * @param \Drupal\Component\Datetime\TimeInterface $time
   *   The clock.
   */
  public function __construct(
    protected readonly Connection $database,
    protected readonly TimeInterface $time,
  ) {
  }

  /**
   * Runs a keyed tool call once: its first result, or runs it and keeps it.
   *
   * @param string $key
   *   The caller's key.
   * @param int $uid
   *   The account the call acts as (keys are the caller's own).
   * @param string $tool
   *   The tool called.
   * @param callable $call
   *   Makes the call; returns its result, or throws when it was refused.
   *
   * @return array
   *   The result and whether it was replayed: ['result' => ..., 'replayed'].
   *
   * @throws \Drupal\service_widget_tools\Mcp\ToolError
   *   When the key was used for another tool, or the first call is still
   *   being made after the wait; and whatever the call throws.
   */
  public function once(string $key, int $uid, string $tool, callable $call): array {
    $id = hash('sha256', $uid . '|' . $key);
    $deadline = microtime(TRUE) + self::WAIT_SECONDS;
    for (;;) {
      $row = $this->claim($id, $tool);
      if ($row === NULL) {
        break;
      }
      if ($row->tool !== $tool) {
        throw new ToolError('This idempotency key was used for another tool call.');
      }
      if ($row->state === 'done') {
        return ['result' => json_decode($row->result, TRUE), 'replayed' => TRUE];
      }
      if ($this->time->getCurrentTime() - (int) $row->created > self::ABANDONED_SECONDS && $this->takeOver($id, (int) $row->created)) {
        break;
      }
      if (microtime(TRUE) > $deadline) {
        throw new ToolError('A call with this idempotency key is still being made: try again shortly.');
      }
      usleep(200000);
    }
    try {
      $result = $call();
    }
    catch (\Throwable $refused) {
      // Nothing was written: a repeat may try again.
      $this->database->delete(self::TABLE)->condition('id', $id)->execute();
      throw $refused;
    }
    $this->database->update(self::TABLE)
      ->fields(['state' => 'done', 'result' => json_encode($result, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE | JSON_THROW_ON_ERROR)])
      ->condition('id', $id)
      ->execute();
    return ['result' => $result, 'replayed' => FALSE];
  }

  /**
   * Claims the key: NULL when this request now handles it, else its row.
   */
  protected function claim(string $id, string $tool): ?object {
    try {
      $this->database->insert(self::TABLE)
        ->fields(['id' => $id, 'tool' => $tool, 'state' => 'pending', 'result' => NULL, 'created' => $this->time->getCurrentTime()])
        ->execute();
      return NULL;
    }
    catch (IntegrityConstraintViolationException) {
      $row = $this->database->select(self::TABLE, 'c')->fields('c')->condition('id', $id)->execute()->fetchObject();
      // Gone between the insert and the read (its call was refused): claim
      // it again.
      return $row ?: $this->claim($id, $tool);
    }
  }

  /**
   * Takes over a key left pending by a request that died, as it was read.
   */
  protected function takeOver(string $id, int $created): bool {
    return $this->database->update(self::TABLE)
      ->fields(['created' => $this->time->getCurrentTime()])
      ->condition('id', $id)
      ->condition('state', 'pending')
      ->condition('created', $created)
      ->execute() === 1;
  }

  /**
   * Deletes results older than KEPT_SECONDS (cron).
   */
  public function prune(): void {
    $this->database->delete(self::TABLE)->condition('created', $this->time->getCurrentTime() - self::KEPT_SECONDS, '<')->execute();
  }

}
