export { isAlive, spawnTied, stopTied, type TiedChild } from './tied-child.ts';
export { supervise, type Child, type Supervised } from './supervise.ts';
