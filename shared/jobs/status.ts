/** The lifecycle of every job of the service (migrations, erasures): pending -> in_progress -> completed | failed. */
export const JOB_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const isActiveStatus = (status: JobStatus): boolean => status === 'pending' || status === 'in_progress';
