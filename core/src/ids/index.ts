export { uuidv7, uuidv7Floor } from './uuid-v7.ts';
