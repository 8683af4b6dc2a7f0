<?php

namespace ServiceWidgetTools\Tests;

use ServiceWidgetTools\StandIn\InMemorySite;

/**
 * The shared contract fixture (tests/fixtures/mcp_tools_contract.json), step
 * by step through the controller, with core's pending revisions and with
 * Content Moderation. The service's TypeScript double answers the same file.
 */
class ContractTest extends ToolsTestCase {

  /**
   * The two ways a site keeps drafts.
   */
  public static function sites(): array {
    return ['core pending revisions' => [FALSE], 'Content Moderation' => [TRUE]];
  }

  /**
   * @dataProvider sites
   */
  public function testEveryStepAnswersAsTheFixtureSays(bool $moderated): void {
    $fixture = service_widget_tools_contract_fixture();
    $this->site = InMemorySite::fromFixture($fixture, $moderated);
    $this->site->setKey(self::KEY);
    $bound = [];
    $departures = [];
    foreach ($fixture['steps'] as $step) {
      $result = $this->call($step['tool'], $step['arguments']);
      $text = $result['content'][0]['text'] ?? '';
      if (isset($step['error'])) {
        $found = ($result['isError'] ?? FALSE) && preg_match('/' . str_replace('/', '\/', $step['error']) . '/i', $text) ? [] : ["expected an error matching /{$step['error']}/i, got $text"];
      }
      elseif ($result['isError'] ?? FALSE) {
        $found = ["expected a result, got the error $text"];
      }
      else {
        $found = $this->departures($step['result'], $result['structuredContent'], $bound, '$');
      }
      if ($found) {
        $departures[$step['name']] = $found;
      }
    }
    $this->assertSame([], $departures);
    $this->assertGreaterThanOrEqual(15, count($fixture['steps']));
  }

  public function testTheMatcherIsStrict(): void {
    $bound = ['r' => 7];
    $this->assertSame([], $this->departures(['a' => 1, 'b' => ['$type' => 'string'], 'c' => ['$bind' => 'r']], ['a' => 1, 'b' => 'x', 'c' => 7], $bound, '$'));
    $this->assertSame(['$.a: expected 1, got 2'], $this->departures(['a' => 1], ['a' => 2], $bound, '$'));
    $this->assertSame(['$.a: missing'], $this->departures(['a' => 1], [], $bound, '$'));
    $this->assertSame(['$.z: not in the contract'], $this->departures(['a' => 1], ['a' => 1, 'z' => 0], $bound, '$'));
    $this->assertSame(['$.c: expected r = 7, got 8'], $this->departures(['c' => ['$bind' => 'r']], ['c' => 8], $bound, '$'));
    $this->assertSame(['$.b: expected a string, got 3'], $this->departures(['b' => ['$type' => 'string']], ['b' => 3], $bound, '$'));
    $this->assertSame(['$: expected 2 items, got [1]'], $this->departures([1, 2], [1], $bound, '$'));
  }

  /**
   * Where a value departs from the fixture's expectation (as the TypeScript
   * matcher in test/helpers/cms-a-contract.ts reads it).
   */
  protected function departures($expected, $actual, array &$bound, string $at): array {
    if (is_array($expected) && !array_is_list($expected)) {
      if (isset($expected['$type'])) {
        $types = ['string' => 'is_string', 'number' => fn($v) => is_int($v) || is_float($v), 'boolean' => 'is_bool'];
        return $types[$expected['$type']]($actual) ? [] : ["$at: expected a {$expected['$type']}, got " . json_encode($actual)];
      }
      if (isset($expected['$bind'])) {
        $name = $expected['$bind'];
        if (!is_int($actual)) {
          return ["$at: expected an integer ($name), got " . json_encode($actual)];
        }
        $bound[$name] ??= $actual;
        return $bound[$name] === $actual ? [] : ["$at: expected $name = {$bound[$name]}, got $actual"];
      }
      if (!is_array($actual) || ($actual !== [] && array_is_list($actual))) {
        return ["$at: expected an object, got " . json_encode($actual)];
      }
      $found = [];
      foreach (array_unique(array_merge(array_keys($expected), array_keys($actual))) as $key) {
        if (!array_key_exists($key, $expected)) {
          $found[] = "$at.$key: not in the contract";
        }
        elseif (!array_key_exists($key, $actual)) {
          $found[] = "$at.$key: missing";
        }
        else {
          $found = array_merge($found, $this->departures($expected[$key], $actual[$key], $bound, "$at.$key"));
        }
      }
      return $found;
    }
    if (is_array($expected)) {
      if (!is_array($actual) || !array_is_list($actual) || count($actual) !== count($expected)) {
        return ["$at: expected " . count($expected) . ' items, got ' . json_encode($actual)];
      }
      $found = [];
      foreach ($expected as $index => $item) {
        $found = array_merge($found, $this->departures($item, $actual[$index], $bound, "{$at}[$index]"));
      }
      return $found;
    }
    return $expected === $actual ? [] : ["$at: expected " . json_encode($expected) . ', got ' . json_encode($actual)];
  }

}
