export { createCmsBNotifier, type Notification } from './cms-b-notifier.ts';
