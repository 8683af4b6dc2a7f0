export { uuidv7 } from './uuid-v7.ts';
