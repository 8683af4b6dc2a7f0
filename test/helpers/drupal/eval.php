<?php

/**
 * @file
 * Runs the PHP in the input's "code" on a booted test site and prints its return value as JSON.
 */

use Symfony\Component\HttpFoundation\Response;

require __DIR__ . '/boot.php';

$result = (static fn(array $input) => eval($input['code']))($input);
// Ending the request runs what Drupal defers to it (a router rebuild, caches written).
$kernel->terminate($request, new Response());
echo json_encode(['result' => $result], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
