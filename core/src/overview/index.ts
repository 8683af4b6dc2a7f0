export { createOverview, type OverviewStatus } from './overview.ts';
