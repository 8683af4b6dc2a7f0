export { createPushConfigs, MAX_PUSH_CONFIGS_PER_TASK, type PushConfigInput, type PushConfigs, type PushConfigView, type PushProtocol } from './configs.ts';
export { createPushDispatcher, type PushDispatcher, type PushDispatcherOptions } from './dispatcher.ts';
export { deliveryId } from './keys.ts';
export { notificationBody, PUSH_JWT_HEADER, PUSH_JWT_TYPE, PUSH_SEQ_HEADER, PUSH_TOKEN_HEADER, type PushSigner } from './notification.ts';
export * from './wire.ts';
