export { trackSteps, stepViews, type JobStep, type JobStepState, type StepTracker } from './step-tracker.ts';
