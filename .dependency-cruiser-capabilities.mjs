// Core's capabilities form a layered graph: checked by dependency-cruiser in `pnpm lint` on core's
// production code, after the module rules of .dependency-cruiser.mjs. See ADR 0024.
import modules from './.dependency-cruiser.mjs';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-capability-cycles',
      severity: 'error',
      comment:
        'Capabilities (the folders under core/src, nested folders counted with their parent) depend on '
        + 'each other in one direction only, even where no single file cycle exists: if auth needs '
        + 'something from audit while audit needs auth, one of them names the part it needs as its own '
        + 'interface (auth/audit-trail.ts) or the shared piece moves to a capability both import. '
        + 'Tests and core/src/testing are left out: a test may use any capability to set up its case.',
      scope: 'folder',
      from: { path: '^core/src/[^/]+$' },
      to: { path: '^core/src/[^/]+$', circular: true },
    },
  ],
  options: {
    ...modules.options,
    exclude: { path: [...modules.options.exclude.path, '\\.test\\.tsx?$', '^core/src/testing/'] },
  },
};
