<?php

/**
 * @file
 * Runs the PHP in the input's "code" on a booted test site and prints its return value as JSON.
 */

require __DIR__ . '/boot.php';

$result = (static fn(array $input) => eval($input['code']))($input);
echo json_encode(['result' => $result], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
