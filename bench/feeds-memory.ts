/**
 * The server's peak RSS growth while it answers one request (bench/feeds.ts): its peak (VmHWM) reset through
 * /proc/<pid>/clear_refs before and read after, and its RSS sampled every few milliseconds meanwhile.
 */
import { writeFileSync } from 'node:fs'
import { memoryOf, round } from './lib.ts'

const SAMPLE_MS = 5

/** Resets the process's peak RSS to its RSS now (Linux 4.0 and later); false where that is refused. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

export interface MemoryGrowth {
  rssBeforeMb: number
  /** The larger of the two readings below. */
  peakGrowthMb: number
  sampledPeakGrowthMb: number
  /** Null where the peak could not be reset (it would hold the process's whole life). */
  hwmPeakGrowthMb: number | null
}

/** Runs `work` (one request to the server `pid`) and reads how far the server's memory rose meanwhile. */
export async function measureDocument<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; memory: MemoryGrowth }> {
  const reset = resetPeak(pid)
  const before = memoryOf(pid)
  if (!before) throw new Error(`cannot read the memory of process ${pid} (/proc)`)
  let sampledPeak = before.rssMb
  const sampler = setInterval(() => {
    const now = memoryOf(pid)
    if (now) sampledPeak = Math.max(sampledPeak, now.rssMb)
  }, SAMPLE_MS)
  let result: T
  try {
    result = await work()
  } finally {
    clearInterval(sampler)
  }
  const after = memoryOf(pid)
  if (after) sampledPeak = Math.max(sampledPeak, after.rssMb)
  const sampledPeakGrowthMb = round(sampledPeak - before.rssMb, 1)
  const hwmPeakGrowthMb = reset && after ? round(after.peakRssMb - before.rssMb, 1) : null
  return {
    result,
    memory: {
      rssBeforeMb: round(before.rssMb, 1),
      peakGrowthMb: Math.max(sampledPeakGrowthMb, hwmPeakGrowthMb ?? 0),
      sampledPeakGrowthMb,
      hwmPeakGrowthMb,
    },
  }
}
