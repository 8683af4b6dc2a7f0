/**
 * The Administration navigation, grouped by what the operator does. A CMS is named by its product
 * ("Drupal", "WordPress") everywhere the UI shows it; the paths keep the connector contract names.
 */
export type AdminIcon = 'overview' | 'agents' | 'runs' | 'connections' | 'settings' | 'audit';

export interface NavLinkItem {
  to: string;
  label: string;
  end?: boolean;
  /** A place on another page (the Overview's switches): a plain link, never shown as the current page. */
  anchor?: boolean;
}

/** A top-level entry: one page (Overview, Audit log) or a labelled group of pages. */
export type NavEntry = { icon: AdminIcon; link: NavLinkItem } | { icon: AdminIcon; group: string; links: NavLinkItem[] };

/** The visible name of each CMS a connector serves (the connector ids stay `cms_a` / `cms_b`). */
export const CMS_NAMES = { 'cms-a-widget': 'Drupal', 'cms-b-widget': 'WordPress' } as const;

export const ADMIN_NAV: NavEntry[] = [
  { icon: 'overview', link: { to: '/administration', label: 'Overview', end: true } },
  {
    icon: 'agents',
    group: 'Agents & marketplace',
    links: [
      { to: '/administration/agents', label: 'Agents' },
      { to: '/administration/marketplace', label: 'Marketplace', end: true },
      { to: '/administration/marketplace/import', label: 'Import extensions' },
    ],
  },
  {
    icon: 'runs',
    group: 'Runs',
    links: [
      { to: '/administration/runs', label: 'Runs' },
      { to: '/administration/jobs', label: 'Jobs' },
      { to: '/administration/usage', label: 'LLM usage' },
    ],
  },
  {
    icon: 'connections',
    group: 'Connections',
    links: [
      { to: '/administration/a2a/clients', label: 'A2A clients' },
      { to: '/administration/a2a/peers', label: 'Remote peers' },
      { to: '/administration/mcp/connections', label: 'MCP connections' },
      { to: '/administration/mcp/servers', label: 'MCP servers' },
      { to: '/administration/connectors/cms-a-widget', label: `${CMS_NAMES['cms-a-widget']} sites` },
      { to: '/administration/connectors/cms-b-widget', label: `${CMS_NAMES['cms-b-widget']} sites` },
      { to: '/administration/assistants/cms-a-widget', label: `${CMS_NAMES['cms-a-widget']} assistants` },
      { to: '/administration/assistants/cms-b-widget', label: `${CMS_NAMES['cms-b-widget']} assistants` },
    ],
  },
  {
    icon: 'settings',
    group: 'Settings',
    links: [
      { to: '/administration/environment/registries', label: 'Registries' },
      { to: '/administration#switches', label: 'Switches', anchor: true },
      { to: '/administration/users', label: 'Users' },
      { to: '/administration/account', label: 'Your account' },
    ],
  },
  { icon: 'audit', link: { to: '/administration/audit', label: 'Audit log' } },
];
