<?php
/**
 * Writes service-widget/languages/service-widget.pot from the plugin's PHP: the plugin header's
 * name and description, and every string passed to WordPress's translation functions with the
 * text domain "service-widget", with the translators: comment above it.
 *
 * WP-CLI's `wp i18n make-pot` does the same where it is installed; this one needs PHP alone and
 * writes the same output for the same source (no creation date, file-only references), so a
 * test can check the committed template against the source.
 *
 *   php cms-plugins/cms-b/make-pot.php            writes the template
 *   php cms-plugins/cms-b/make-pot.php --stdout   prints it instead
 */

const DOMAIN = 'service-widget';
const PLUGIN_DIR = __DIR__ . '/service-widget';

/** Which arguments of each translation function hold what (0-based). */
const FUNCTIONS = [
    '__' => ['text' => 0, 'domain' => 1],
    '_e' => ['text' => 0, 'domain' => 1],
    'esc_html__' => ['text' => 0, 'domain' => 1],
    'esc_html_e' => ['text' => 0, 'domain' => 1],
    'esc_attr__' => ['text' => 0, 'domain' => 1],
    'esc_attr_e' => ['text' => 0, 'domain' => 1],
    '_x' => ['text' => 0, 'context' => 1, 'domain' => 2],
    '_ex' => ['text' => 0, 'context' => 1, 'domain' => 2],
    'esc_html_x' => ['text' => 0, 'context' => 1, 'domain' => 2],
    'esc_attr_x' => ['text' => 0, 'context' => 1, 'domain' => 2],
    '_n' => ['text' => 0, 'plural' => 1, 'domain' => 3],
    '_nx' => ['text' => 0, 'plural' => 1, 'context' => 3, 'domain' => 4],
    '_n_noop' => ['text' => 0, 'plural' => 1, 'domain' => 2],
    '_nx_noop' => ['text' => 0, 'plural' => 1, 'context' => 2, 'domain' => 3],
];

/** The PHP value of a string literal token, or null when the token is anything else. */
function literal(array|string $token): ?string {
    if (!is_array($token) || $token[0] !== T_CONSTANT_ENCAPSED_STRING) {
        return null;
    }
    $quoted = $token[1];
    $body = substr($quoted, 1, -1);
    if ($quoted[0] === "'") {
        return strtr($body, ["\\'" => "'", '\\\\' => '\\']);
    }
    return stripcslashes(str_replace('\\$', '$', $body));
}

/**
 * The arguments of the call whose "(" is at $open: for each, its tokens without whitespace and
 * comments.
 */
function call_arguments(array $tokens, int $open): array {
    $arguments = [[]];
    $depth = 0;
    for ($i = $open + 1; $i < count($tokens); $i++) {
        $token = $tokens[$i];
        $text = is_array($token) ? $token[1] : $token;
        if (is_array($token) && in_array($token[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT], true)) {
            continue;
        }
        if ($depth === 0 && $text === ')') {
            break;
        }
        if ($depth === 0 && $text === ',') {
            $arguments[] = [];
            continue;
        }
        if (in_array($text, ['(', '[', '{'], true) || (is_array($token) && in_array($token[0], [T_CURLY_OPEN, T_DOLLAR_OPEN_CURLY_BRACES], true))) {
            $depth++;
        } elseif (in_array($text, [')', ']', '}'], true)) {
            $depth--;
        }
        $arguments[count($arguments) - 1][] = $token;
    }
    return $arguments;
}

/** The single string literal an argument is, or null. */
function argument_literal(?array $argument): ?string {
    return $argument !== null && count($argument) === 1 ? literal($argument[0]) : null;
}

/** Every translatable string of one file: [msgid, plural, context, comment, file]. */
function strings_in(string $file, string $relative): array {
    $tokens = token_get_all(file_get_contents($file));
    $found = [];
    $comment = null;
    foreach ($tokens as $index => $token) {
        if (!is_array($token)) {
            continue;
        }
        if (in_array($token[0], [T_COMMENT, T_DOC_COMMENT], true)) {
            $text = trim(preg_replace('~^\s*(/\*+|//|#)|\*+/\s*$~', '', $token[1]));
            $text = trim(preg_replace('~\s*\n\s*\*?\s*~', ' ', $text));
            if (stripos($text, 'translators:') === 0) {
                $comment = ['text' => $text, 'line' => $token[2] + substr_count($token[1], "\n")];
            }
            continue;
        }
        if ($token[0] !== T_STRING || !isset(FUNCTIONS[$token[1]])) {
            continue;
        }
        $next = $index + 1;
        while (isset($tokens[$next]) && is_array($tokens[$next]) && $tokens[$next][0] === T_WHITESPACE) {
            $next++;
        }
        $previous = $index - 1;
        while ($previous >= 0 && is_array($tokens[$previous]) && $tokens[$previous][0] === T_WHITESPACE) {
            $previous--;
        }
        $before = $previous >= 0 ? $tokens[$previous] : null;
        // A call, not a declaration, a method or a constant of that name.
        if (($tokens[$next] ?? null) !== '(' || (is_array($before) && in_array($before[0], [T_FUNCTION, T_OBJECT_OPERATOR, T_DOUBLE_COLON, T_NULLSAFE_OBJECT_OPERATOR], true))) {
            continue;
        }
        $spec = FUNCTIONS[$token[1]];
        $arguments = call_arguments($tokens, $next);
        $domain = argument_literal($arguments[$spec['domain']] ?? null);
        if ($domain !== DOMAIN) {
            fwrite(STDERR, sprintf("%s:%d: %s() without the text domain '%s'\n", $relative, $token[2], $token[1], DOMAIN));
            exit(1);
        }
        $entry = [
            'msgid' => argument_literal($arguments[$spec['text']]),
            'plural' => isset($spec['plural']) ? argument_literal($arguments[$spec['plural']] ?? null) : null,
            'context' => isset($spec['context']) ? argument_literal($arguments[$spec['context']] ?? null) : null,
            'comment' => $comment !== null && $token[2] - $comment['line'] <= 1 ? $comment['text'] : null,
            'file' => $relative,
        ];
        if ($entry['msgid'] === null || (isset($spec['plural']) && $entry['plural'] === null) || (isset($spec['context']) && $entry['context'] === null)) {
            fwrite(STDERR, sprintf("%s:%d: %s() needs string literals (a translation is looked up by the literal text)\n", $relative, $token[2], $token[1]));
            exit(1);
        }
        $found[] = $entry;
        $comment = null;
    }
    return $found;
}

/** A PO string: "…", split after each \n as msgmerge writes long ones. */
function po_string(string $value): string {
    $escaped = addcslashes($value, "\\\"\t");
    $escaped = str_replace(["\r", "\n"], ['\\r', '\\n'], $escaped);
    if (!str_contains($value, "\n") || $value === "\n") {
        return '"' . $escaped . '"';
    }
    $parts = preg_split('/(?<=\\\\n)/', $escaped, -1, PREG_SPLIT_NO_EMPTY);
    return "\"\"\n" . implode("\n", array_map(fn ($part) => '"' . $part . '"', $parts));
}

function plugin_header(string $main, string $name): ?string {
    return preg_match('/^[ \t\/*#@]*' . preg_quote($name, '/') . ':(.*)$/mi', file_get_contents($main), $match) ? trim($match[1]) : null;
}

function make_pot(): string {
    $main = PLUGIN_DIR . '/service-widget.php';
    $entries = [];
    $add = function (array $entry) use (&$entries) {
        $key = ($entry['context'] ?? '') . "\4" . $entry['msgid'];
        if (!isset($entries[$key])) {
            $entries[$key] = $entry + ['files' => [], 'comments' => []];
        }
        $entries[$key]['files'][$entry['file']] = true;
        if ($entry['comment'] !== null) {
            $entries[$key]['comments'][$entry['comment']] = true;
        }
    };
    foreach (['Plugin Name', 'Description'] as $header) {
        $add(['msgid' => plugin_header($main, $header), 'plural' => null, 'context' => null, 'comment' => "$header of the plugin", 'file' => 'service-widget.php']);
    }
    $files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator(PLUGIN_DIR, FilesystemIterator::SKIP_DOTS));
    $paths = [];
    foreach ($files as $file) {
        if ($file->getExtension() === 'php') {
            $paths[] = substr($file->getPathname(), strlen(PLUGIN_DIR) + 1);
        }
    }
    // The main file first, then the others by name: the order does not move when files are added.
    usort($paths, fn ($a, $b) => [$a !== 'service-widget.php', $a] <=> [$b !== 'service-widget.php', $b]);
    foreach ($paths as $path) {
        foreach (strings_in(PLUGIN_DIR . '/' . $path, $path) as $entry) {
            $add($entry);
        }
    }

    $out = "# Translation template of the Service Widget plugin, written by cms-plugins/cms-b/make-pot.php.\n";
    $out .= "# This file is distributed under the same license as the plugin (" . plugin_header($main, 'License') . ").\n";
    $out .= "msgid \"\"\nmsgstr \"\"\n";
    foreach ([
        'Project-Id-Version' => 'Service Widget ' . plugin_header($main, 'Version'),
        'PO-Revision-Date' => 'YEAR-MO-DA HO:MI+ZONE',
        'Last-Translator' => 'FULL NAME <EMAIL@ADDRESS>',
        'Language-Team' => 'LANGUAGE <LL@li.org>',
        'Language' => '',
        'MIME-Version' => '1.0',
        'Content-Type' => 'text/plain; charset=UTF-8',
        'Content-Transfer-Encoding' => '8bit',
        'X-Domain' => DOMAIN,
    ] as $name => $value) {
        $out .= '"' . $name . ':' . ($value === '' ? '' : ' ' . $value) . "\\n\"\n";
    }
    foreach ($entries as $entry) {
        $out .= "\n";
        foreach (array_keys($entry['comments']) as $comment) {
            $out .= "#. $comment\n";
        }
        $out .= '#: ' . implode(' ', array_keys($entry['files'])) . "\n";
        $texts = $entry['msgid'] . ($entry['plural'] ?? '');
        if (preg_match('/%(\d+\$)?[-+ 0#]*\d*(\.\d+)?[bcdeEfFgGosuxX]/', $texts)) {
            $out .= "#, php-format\n";
        }
        if ($entry['context'] !== null) {
            $out .= 'msgctxt ' . po_string($entry['context']) . "\n";
        }
        $out .= 'msgid ' . po_string($entry['msgid']) . "\n";
        if ($entry['plural'] !== null) {
            $out .= 'msgid_plural ' . po_string($entry['plural']) . "\nmsgstr[0] \"\"\nmsgstr[1] \"\"\n";
        } else {
            $out .= "msgstr \"\"\n";
        }
    }
    return $out;
}

$pot = make_pot();
if (in_array('--stdout', $argv, true)) {
    echo $pot;
} else {
    if (!is_dir(PLUGIN_DIR . '/languages')) {
        mkdir(PLUGIN_DIR . '/languages');
    }
    file_put_contents(PLUGIN_DIR . '/languages/' . DOMAIN . '.pot', $pot);
}
