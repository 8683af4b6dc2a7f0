<?php

/**
 * @file
 * Boots the test site named by SERVICE_DRUPAL_SITE for a PHP script run from the code base's root,
 * as a request to the site's URL would: the script's JSON input is read from standard input.
 */

use Drupal\Core\DrupalKernel;
use Symfony\Component\HttpFoundation\Request;

$input = json_decode(stream_get_contents(STDIN), TRUE, 512, JSON_THROW_ON_ERROR);
$autoloader = require getcwd() . '/autoload.php';
$request = Request::create($input['siteUrl'] . '/');
$kernel = DrupalKernel::createFromRequest($request, $autoloader, 'prod');
$kernel->boot();
$kernel->preHandle($request);
