import { z } from 'zod';

// Zod 4 compiles a faster parser for object schemas with `new Function`, probing once with a caught
// `new Function('')` when the first one is built. The admin UI's policy has no 'unsafe-eval', so in
// the browser that probe is a reported CSP violation on every page with a form schema. The browser
// parses interpreted instead (jitless skips the probe); the server keeps the compiled parsers.
if (typeof document !== 'undefined') z.config({ jitless: true });
