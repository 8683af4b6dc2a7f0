export { migrateRunsToLayout2, UnsupportedLayoutError } from './runs-layout-2.ts';
