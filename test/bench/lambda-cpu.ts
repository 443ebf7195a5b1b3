import { type FunctionSpec, memoryOf } from '#service/functions.js';

/**
 * Lambda gives a function CPU in proportion to its memory: one full vCPU at 1,769 MB. Below
 * that, a single-threaded handler runs slower than here by 1769 / memory; above it, a single
 * thread gains nothing more. The bench measures CPU time on this machine and projects it so.
 */
export const FULL_VCPU_MB = 1769;

/** The share of one vCPU a function of `memoryMb` gets (at most 1: one thread uses one vCPU). */
export const vcpuShare = (memoryMb: number): number => Math.min(1, memoryMb / FULL_VCPU_MB);

/** Seconds `cpuSeconds` of CPU time measured here take in a function of `memoryMb`. */
export const projectedSeconds = (cpuSeconds: number, memoryMb: number): number => cpuSeconds / vcpuShare(memoryMb);

/** The same for a function spec (its memory, or the default). */
export const projectedSecondsFor = (cpuSeconds: number, spec: Pick<FunctionSpec, 'memoryMb'>): number =>
  projectedSeconds(cpuSeconds, memoryOf(spec));

/** CPU time (user + system) of this process since `from`, in seconds. */
export const cpuSecondsSince = (from: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e6;
};
