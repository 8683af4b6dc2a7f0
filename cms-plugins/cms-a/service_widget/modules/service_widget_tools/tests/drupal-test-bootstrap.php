<?php

/**
 * @file
 * Runs Drupal's own test bootstrap with Debian's PHPUnit.
 *
 * A Drupal code base installed without its dev dependencies (as the tests'
 * archive is) has no PHPUnit, Mink, symfony/phpunit-bridge, vfsStream or
 * Prophecy. Kernel tests need all but Mink, from Debian's packages (phpunit,
 * php-symfony-phpunit-bridge, php-mikey179-vfsstream,
 * php-phpspec-prophecy-phpunit), found on PHP's include path. Core's
 * bootstrap then needs two things it assumes Composer's dev dependencies
 * give: PHPUnit's classes already loaded (it rewrites them from vendor/
 * otherwise), and Mink's TraversableElement (it aliases Mink's
 * DocumentElement for browser tests, which these are not).
 *
 * Run from the Drupal root, with SIMPLETEST_DB=sqlite://localhost/<file>:
 *   phpunit -c <this folder>/phpunit.kernel.xml
 */

namespace Behat\Mink\Element {

  if (!class_exists(TraversableElement::class)) {

    /**
     * Stands in for Mink, which only browser tests use.
     */
    abstract class TraversableElement {
    }

  }
}

namespace {

  require_once 'org/bovigo/vfs/autoload.php';
  require_once 'Prophecy/PhpUnit/autoload.php';
  class_exists(\PHPUnit\Framework\TestCase::class);
  class_exists(\PHPUnit\Framework\Assert::class);
  require getenv('DRUPAL_ROOT') ? getenv('DRUPAL_ROOT') . '/core/tests/bootstrap.php' : getcwd() . '/core/tests/bootstrap.php';
  require_once 'Symfony/Bridge/PhpUnit/autoload.php';
}
