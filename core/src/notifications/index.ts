export { createCmsBNotifier, createCmsBEvents, type Notification } from './cms-b-notifier.ts';
