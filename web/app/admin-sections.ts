/**
 * The Administration navigation. Later capabilities (Environment › Registries, Connectors,
 * Assistants, Marketplace, A2A clients) add their section here when their pages exist.
 */
export const ADMIN_SECTIONS: { to: string; label: string; end?: boolean }[] = [
  { to: '/administration', label: 'Overview', end: true },
  { to: '/administration/marketplace', label: 'Marketplace', end: true },
  { to: '/administration/marketplace/import', label: 'Import extensions' },
  { to: '/administration/agents', label: 'Agents' },
  { to: '/administration/environment/registries', label: 'Environment › Registries' },
  { to: '/administration/runs', label: 'Runs' },
  { to: '/administration/jobs', label: 'Jobs' },
  { to: '/administration/usage', label: 'LLM usage' },
  { to: '/administration/connectors/cms-a-widget', label: 'Connectors › CMS-A' },
  { to: '/administration/connectors/cms-b-widget', label: 'Connectors › CMS-B' },
  { to: '/administration/assistants/cms-a-widget', label: 'Assistants › CMS-A' },
  { to: '/administration/assistants/cms-b-widget', label: 'Assistants › CMS-B' },
  { to: '/administration/a2a/clients', label: 'A2A clients' },
  { to: '/administration/a2a/peers', label: 'Remote peers' },
  { to: '/administration/mcp/connections', label: 'MCP connections' },
  { to: '/administration/audit', label: 'Audit log' },
  { to: '/administration/users', label: 'Users' },
  { to: '/administration/account', label: 'Your account' },
];
