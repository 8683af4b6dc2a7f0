export { json, errorResponse } from './json.ts';
