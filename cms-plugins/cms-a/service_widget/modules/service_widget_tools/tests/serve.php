<?php

/**
 * @file
 * Router for `php -S`: the module's /_mcp_tools over the in-memory site.
 *
 * The site lives in the JSON file named by SERVICE_WIDGET_TOOLS_STATE between
 * requests (each request is a fresh PHP run); the first request seeds it from
 * the contract fixture with the key in SERVICE_WIDGET_TOOLS_KEY (stored hashed,
 * as the module stores it). Only /_mcp_tools is routed, as the module's
 * routing.yml routes it; InMemorySite::handle() stands in for Drupal's
 * authentication, access and refusal answers. Used by the service's
 * TypeScript tests (test/helpers/cms-a-php.ts), whose contract fixture names
 * nodes with letters no real Drupal node id has.
 */

use ServiceWidgetTools\StandIn\InMemorySite;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;

require __DIR__ . '/bootstrap.php';

$state_file = (string) getenv('SERVICE_WIDGET_TOOLS_STATE');
$lock = fopen($state_file . '.lock', 'c');
flock($lock, LOCK_EX);
$data = is_file($state_file) ? json_decode(file_get_contents($state_file), TRUE, 512, JSON_THROW_ON_ERROR) : NULL;
if ($data === NULL) {
  $site = InMemorySite::fromFixture(service_widget_tools_contract_fixture(), getenv('SERVICE_WIDGET_TOOLS_MODERATED') === '1');
  $site->setKey((string) getenv('SERVICE_WIDGET_TOOLS_KEY'));
}
else {
  $site = new InMemorySite($data);
}

$request = Request::createFromGlobals();
if ($request->getPathInfo() !== '/_mcp_tools') {
  $response = new Response('Not Found', 404);
}
else {
  $response = $site->handle($request);
}
file_put_contents($state_file, json_encode($site->toArray(), JSON_THROW_ON_ERROR));
flock($lock, LOCK_UN);
$response->send();
