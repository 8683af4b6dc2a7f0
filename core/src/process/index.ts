export { isAlive } from './is-alive.ts';
export { supervise, type Child, type Supervised } from './supervise.ts';
