// The template language of a flow's steps (`{{input}}`, `{{steps.<id>.output.<field>}}`) and their
// `when` conditions, shared by the run executor and the agent runtime process; a leaf with no
// imports, so the runtime's start-up loads nothing else.
export { renderTemplate } from './render.ts';
export { CONDITION, conditionHolds, conditionStep } from './condition.ts';
