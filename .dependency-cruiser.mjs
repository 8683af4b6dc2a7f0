// The workspace's module boundaries, checked by dependency-cruiser in `pnpm lint`
// (`pnpm lint:boundaries` runs this check alone). Read the rules below as the architecture:
// each says what may depend on what, and why. ADR 0001 (layout) and ADR 0024 (this check).
//
// Paths are relative to the workspace root and are regular expressions, not globs.
// A rule's `comment` is printed under each of its violations (`--output-type err-long`).

/** Test files, beside the code or in the test package. */
const TEST_FILE = '\\.test\\.tsx?$';

/**
 * What core publishes to other packages: exactly the `exports` of core/package.json
 * (`@service/core`, `@service/core/<capability>`, including nested surfaces such as
 * `@service/core/auth/oauth`, and the three named test and engine entry points).
 */
const CORE_PUBLISHED = [
  '^core/src/index\\.ts$',
  '^core/src/.+/index\\.ts$',
  '^core/src/testing/test-services\\.ts$',
  '^core/src/testing/example-agents\\.ts$',
  '^core/src/node-engine/require\\.ts$',
];

/**
 * Dependencies that break a rule today and are accepted for a time, each with its reason. An entry
 * names its rule, the file, and exactly what it may use: `to`, an imported file (checked here), or
 * `uses`, an expression (checked by the eslint rule of the same name, eslint.config.js). Both
 * tools print every entry on every run (here as `info temporary-allowlist/<n>`, eslint as a
 * warning), and test/workspace/boundaries.test.ts fails once an entry no longer matches the code,
 * so the list only shrinks. Remove an entry together with what it excuses.
 */
// Dependencies the rules tolerate for now, each with its reason (printed on every run). Empty:
// the embedded servers moved into their own package (ADR 0026) and the routers' use cases into
// core (ADR 0025). A new entry needs a reason and an issue that removes it.
export const TEMPORARY_ALLOWLIST = [
  // The boundaries test exercises the mechanism with an entry of its own, given here.
  ...(globalThis.process?.env.SERVICE_BOUNDARIES_TEST_ALLOWLIST ? JSON.parse(globalThis.process.env.SERVICE_BOUNDARIES_TEST_ALLOWLIST) : []),
];

/** Escapes a path for use as an exact regular expression. */
const exactly = (path) => `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

/**
 * A rule as the architecture states it, plus the allowlisted dependencies it tolerates for now:
 * files with allowlisted imports are checked by a copy of the rule that skips exactly those
 * imports (any other import they add is still an error), and each allowlisted import is reported
 * as `info` under `temporary-allowlist` with its reason.
 */
function withAllowlist(rule) {
  const entries = TEMPORARY_ALLOWLIST.filter((entry) => entry.rule === rule.name && entry.to);
  const froms = [...new Set(entries.map((entry) => entry.from))];
  const asList = (value) => (value === undefined ? [] : [value].flat());
  const main = { ...rule, from: { ...rule.from, pathNot: [...asList(rule.from.pathNot), ...froms.map(exactly)] } };
  const perFile = froms.map((from) => {
    // An exact `from` has no groups, so the `$1`… a `to` refers to are filled in here.
    const groups = new RegExp(asList(rule.from.path)[0]).exec(from) ?? [];
    const fill = (pattern) => pattern.replace(/\$(\d)/g, (_, n) => exactly(groups[Number(n)] ?? '').slice(1, -1));
    return {
      ...rule,
      from: { path: exactly(from) },
      to: {
        ...rule.to,
        path: asList(rule.to.path).map(fill),
        pathNot: [...asList(rule.to.pathNot).map(fill), ...entries.filter((entry) => entry.from === from).map((entry) => exactly(entry.to))],
      },
    };
  });
  // err-long prints the comment of the first rule with a violation's name: one name per entry.
  const reported = entries.map((entry) => ({
    name: `temporary-allowlist/${TEMPORARY_ALLOWLIST.indexOf(entry) + 1}`,
    severity: 'info',
    comment: `Allowed for now despite rule ${entry.rule}: ${entry.why}.`,
    from: { path: exactly(entry.from) },
    to: { path: exactly(entry.to) },
  }));
  return [main, ...perFile, ...reported];
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules depend on each other in one direction only, in every package, type-only imports included: '
        + 'a cycle means two modules are one unit split in two, or a shared piece belongs in a third module '
        + 'both can import. Move the shared types or functions to where they belong.',
      from: {},
      to: { circular: true },
    },
    ...withAllowlist({
      name: 'core-capabilities-through-index',
      severity: 'error',
      comment:
        'Each folder under core/src is a capability with an index.ts surface. Its own files (tests included) '
        + 'import each other freely; any other code in core imports it only through an index.ts '
        + '(`../auth/index.ts`, or a nested surface such as `../auth/oauth/index.ts`). '
        + 'Export what is needed from the index, or move it to the capability it belongs to.',
      from: { path: '^core/src/([^/]+)/' },
      to: { path: '^core/src/[^/]+/', pathNot: ['^core/src/$1/', '^core/src/.+/index\\.ts$'] },
    }),
    {
      name: 'core-root-through-index',
      severity: 'error',
      comment:
        'The files directly in core/src (services.ts: createServices, the composition root; version.ts) '
        + 'are published through core/src/index.ts (`@service/core`); capabilities import that, not the files.',
      from: { path: '^core/src/[^/]+/' },
      to: { path: '^core/src/[^/]+\\.ts$', pathNot: '^core/src/index\\.ts$' },
    },
    {
      name: 'core-imports-no-other-package',
      severity: 'error',
      comment:
        'core is the domain: it serves the transports (web, mcp-server) and never depends on them, '
        + 'on the widget, or on the test package.',
      from: { path: '^core/' },
      to: { path: '^(web|mcp-server|widget|test|cms-plugins)/' },
    },
    {
      name: 'core-reached-through-exports',
      severity: 'error',
      comment:
        'Other packages reach core only through what core/package.json exports '
        + '(`@service/core/<capability>`, i.e. a capability\'s index.ts), never by a path into its files.',
      from: { pathNot: '^core/' },
      to: { path: '^core/', pathNot: CORE_PUBLISHED },
    },
    ...withAllowlist({
      name: 'web-uses-no-database-models',
      severity: 'error',
      comment:
        'web is a transport: its routes and tRPC procedures call core\'s use cases (services.*), '
        + 'never the database layer (core/db: connection, mongoose models, records) or mongoose/mongodb. '
        + 'Tests in web may read the database to check what was stored. '
        + 'The eslint rule in eslint.config.js catches `services.database.models` used without an import.',
      from: { path: '^web/', pathNot: TEST_FILE },
      to: { path: ['^core/src/db/', 'node_modules/(mongoose|mongodb)/', '^(mongoose|mongodb)$'] },
    }),
    {
      name: 'routes-are-leaves',
      severity: 'error',
      comment:
        'A Remix route (web/app/routes) or a tRPC router (web/app/trpc/routers) is an entry point, never '
        + 'a library: it imports no other route or router. Shared code goes to web/app/forms, web/app/ui, '
        + 'web/app/auth, or into core; routers are composed only by web/app/trpc/router.server.ts.',
      from: { path: '^web/app/(routes|trpc/routers)/', pathNot: TEST_FILE },
      to: { path: '^web/app/(routes|trpc/routers)/' },
    },
  ],
  options: {
    // Only this workspace's own sources; npm packages are leaves.
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: ['(^|/)(dist|build)/', '^core/test-fixtures/', '^test/\\.artifacts/', '\\.d\\.ts$'] },
    // Type-only imports count: a cycle through types is still a cycle in the design.
    tsPreCompilationDeps: true,
    // web's `~/` imports resolve through its tsconfig paths; the rest of the workspace has none.
    tsConfig: { fileName: `${import.meta.dirname}/web/tsconfig.json` },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
  },
};
