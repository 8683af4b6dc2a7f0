export { useTestDatabase, testDatabaseUri, uniqueDatabaseName } from './test-database.ts';
export { testServices, testConfig } from './test-services.ts';
