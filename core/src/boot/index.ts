export { startServices, type StartedServices } from './start-services.ts';
export { ensureInitialAdmin, GENERATED_ADMIN_EMAIL, type InitialSignIn } from './initial-admin.ts';
export { startBackgroundWork } from './background.ts';
