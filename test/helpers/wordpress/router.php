<?php
// php -S router: real files are served as they are; everything else goes to WordPress.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$root = $_SERVER['DOCUMENT_ROOT'];
if ($path !== '/' && is_file($root . $path) && !str_ends_with($path, '.php')) {
    return false;
}
if ($path !== '/' && is_file($root . $path) && str_ends_with($path, '.php')) {
    require $root . $path;
    return true;
}
$_SERVER['SCRIPT_NAME'] = '/index.php';
require $root . '/index.php';
