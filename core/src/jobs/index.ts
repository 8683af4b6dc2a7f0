export { trackSteps, stepViews, type JobStep, type JobStepState, type StepTracker } from './step-tracker.ts';
export { createJobList, JOB_KINDS, JOB_STATES, type JobFilter, type JobKind, type JobState, type ListedJob, type ListJobs } from './job-list.ts';
