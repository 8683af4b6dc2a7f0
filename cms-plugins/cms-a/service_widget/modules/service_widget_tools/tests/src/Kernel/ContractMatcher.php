<?php

namespace Drupal\Tests\service_widget_tools\Kernel;

/**
 * The contract fixture's matcher, as test/helpers/cms-a-contract.ts reads it.
 *
 * In expected values, {"$type": T} matches any value of JSON type T and
 * {"$bind": name} matches an integer and binds it: later uses must be equal.
 */
final class ContractMatcher {

  /**
   * Where a value departs from the fixture's expectation.
   */
  public static function departures($expected, $actual, array &$bound, string $at): array {
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
          $found = array_merge($found, self::departures($expected[$key], $actual[$key], $bound, "$at.$key"));
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
        $found = array_merge($found, self::departures($item, $actual[$index], $bound, "{$at}[$index]"));
      }
      return $found;
    }
    return $expected === $actual ? [] : ["$at: expected " . json_encode($expected) . ', got ' . json_encode($actual)];
  }

}
