/** What bench/generation.ts prints: the runs, the memory, the concurrent generations and the verdicts. */

import type { ConcurrentResult } from './generation-concurrent.ts'
import type { Backend } from './generation-harness.ts'
import type { RunFigures, SequentialResult, Settings } from './generation-runs.ts'
import { type machine, round, table } from './lib.ts'

/** The issue's targets: our side of one 1,000-item generation, memory growth, many works at once. */
export const TARGET_OURS_MS: Record<Backend, number> = { embedded: 2000, postgres: 1000 }
export const TARGET_GROWTH_MB = 50

export interface GenerationReport {
  benchmark: 'generation'
  at: string
  machine: ReturnType<typeof machine>
  loadAverageAtEnd: number[]
  postgres: { version: string; url: string } | null
  gcExposed: boolean
  code: { head: string; uncommittedSrcFiles: number }
  /** GENERATION_CONCURRENCY of the instances: generations one instance runs at once. */
  generationConcurrency: number | null
  settings: Settings
  skipped: string[]
  sequential: SequentialResult[]
  concurrent: ConcurrentResult | null
}

const out = (text: string) => process.stdout.write(text)
const ms = (value: number) => (Number.isFinite(value) ? round(value, 1) : '–')
const mark = (ok: boolean) => (ok ? '✓' : '✗')
const tally = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')

function runRows(runs: RunFigures[], label: (run: RunFigures) => string, withInstance: boolean) {
  return [
    [
      'run',
      ...(withInstance ? ['instance'] : []),
      'wait ms',
      'before ask ms',
      'stand-in ms',
      'answer→finished_at ms',
      'finish ms',
      'ours ms',
      'job ms',
      'CPU ms',
      'items stored',
      'status',
    ],
    ...runs.map((run) => [
      label(run),
      ...(withInstance ? [run.instance] : []),
      ms(run.waitMs),
      ms(run.beforeAskMs),
      ms(run.standInMs),
      ms(run.answerToFinishMs),
      ms(run.finishMs),
      ms(run.oursMs),
      ms(run.jobMs),
      ms(run.cpuMs),
      run.storedItems,
      run.status === run.workStatus ? run.status : `${run.status} (work ${run.workStatus})`,
    ]),
  ]
}

export function printReport(report: GenerationReport) {
  const { machine: m, settings } = report
  out(
    `\nCurio generation: ${settings.items.toLocaleString('en')} items per run from the OpenAI stand-in ` +
      '(test/fakes/openai.ts, answers at once), everything in this process\n' +
      `${m.node}, ${m.platform}, ${m.cpus} CPU(s), ${m.cpuModel}, ${m.totalMemMb} MB RAM; load average at ` +
      `start ${m.loadAverage.join(' / ')}, at end ${report.loadAverageAtEnd.join(' / ')}\n` +
      `${report.postgres ? `Postgres ${report.postgres.version} at ${report.postgres.url}` : 'no Postgres answered'}; ` +
      `job polling every ${settings.pollSec} s (the production default is 2 s); ` +
      `--expose-gc ${report.gcExposed ? 'on' : 'OFF (memory baseline less steady)'}\n` +
      `code at HEAD ${report.code.head}${report.code.uncommittedSrcFiles ? ` + ${report.code.uncommittedSrcFiles} uncommitted file(s) under src/` : ''}; ` +
      `GENERATION_CONCURRENCY ${report.generationConcurrency ?? '?'} (generations one instance runs at once)\n`,
  )
  for (const line of report.skipped) out(`${line}\n`)

  for (const result of report.sequential) {
    const target = TARGET_OURS_MS[result.backend]
    out(
      `\n== ${result.backend}: ${settings.warmups} warm-up(s) (w) + ${settings.runs} measured runs, one at a time, ` +
        `${settings.sameWork ? 'all on one work (each replaces the last run’s items)' : 'a new work each'}\n\n`,
    )
    out(`${table(runRows(result.runs, (run) => (run.warmup ? `w${run.run}` : String(run.run)), false))}\n`)
    const { ours, memory } = result
    out(
      `\nour side: median ${ours.median} ms, p95 ${ours.p95} ms, max ${ours.max} ms ` +
        `(target < ${target} ms: ${mark(ours.p95 < target)}); stand-in median ${result.standIn.median} ms; ` +
        `${result.complete}/${settings.runs} runs COMPLETED with ${settings.items} items stored\n` +
        `memory over the measured runs (${memory.samples} samples, every 10 ms): RSS ${memory.baselineRssMb} MB → ` +
        `peak ${memory.peakRssMb} MB (+${memory.rssGrowthMb} MB, target < ${TARGET_GROWTH_MB} MB: ` +
        `${mark(memory.rssGrowthMb < TARGET_GROWTH_MB)}); heap used ${memory.baselineHeapMb} MB → peak ` +
        `${memory.peakHeapMb} MB (+${memory.heapGrowthMb} MB); at the end RSS ${memory.endRssMb} MB, heap after ` +
        `a collection ${memory.endHeapAfterGcMb} MB\n`,
    )
  }

  const c = report.concurrent
  if (c) {
    out(
      `\n== postgres: ${c.works} works (over ${c.accounts} accounts) generating at once; ${c.instances.length} ` +
        `instance(s) (${c.instances.join(', ')}) on one database, each with its own pool and job queue running up ` +
        `to ${report.generationConcurrency ?? '?'} generations at once; the POSTs spread over them in turn\n\n`,
    )
    out(`${table(runRows(c.runs, (run) => String(run.run), true))}\n`)
    out(
      `\nPOST …/generate: ${tally(c.postStatuses)} (all answered in ${c.postMs} ms)\n` +
        `final run status: ${tally(c.finalStatuses)}; stuck (PENDING/GENERATING): ${c.stuck}` +
        `${c.timedOut ? ` — STOPPED WAITING after ${settings.timeoutSec} s` : ''}\n` +
        `items stored per run: ${[...new Set(c.runs.map((run) => run.storedItems))].sort((a, b) => a - b).join(', ')} ` +
        `(${c.complete}/${c.works} runs COMPLETED with ${settings.items})\n` +
        `jobs taken per instance: ${tally(c.jobsByInstance)}; failed job attempts: ${c.failedJobAttempts}\n` +
        `wall time, first POST to the last run's end: ${ms(c.wallMs)} ms; wait in the queue (run created → job ` +
        `start): median ${c.wait.median} ms, max ${c.wait.max} ms; our side per run: median ${c.ours.median} ms, ` +
        `max ${c.ours.max} ms\n` +
        `memory: RSS ${c.memory.baselineRssMb} MB → peak ${c.memory.peakRssMb} MB (+${c.memory.rssGrowthMb} MB), ` +
        `heap used +${c.memory.heapGrowthMb} MB (both instances, this process)\n`,
    )
  }

  out('\nTargets\n\n')
  const rows: (string | number)[][] = [['target', 'measured', 'verdict']]
  for (const result of report.sequential) {
    const target = TARGET_OURS_MS[result.backend]
    const allComplete = result.complete === settings.runs
    rows.push([
      `${result.backend}: our side of a ${settings.items}-item generation < ${target} ms (p95 of ${settings.runs})`,
      `median ${result.ours.median} / p95 ${result.ours.p95} / max ${result.ours.max} ms` +
        `${allComplete ? '' : `; only ${result.complete}/${settings.runs} complete`}`,
      mark(result.ours.p95 < target && allComplete),
    ])
  }
  for (const result of report.sequential) {
    rows.push([
      `${result.backend}: peak RSS growth over the runs < ${TARGET_GROWTH_MB} MB`,
      `+${result.memory.rssGrowthMb} MB (RSS ${result.memory.baselineRssMb} → ${result.memory.peakRssMb} MB)`,
      mark(result.memory.rssGrowthMb < TARGET_GROWTH_MB),
    ])
    rows.push([
      `${result.backend}: the same on heap used (uncollected garbage included)`,
      `+${result.memory.heapGrowthMb} MB (${result.memory.baselineHeapMb} → ${result.memory.peakHeapMb} MB; ` +
        `${result.memory.endHeapAfterGcMb} MB after a collection)`,
      mark(result.memory.heapGrowthMb < TARGET_GROWTH_MB),
    ])
  }
  if (c) {
    rows.push([
      `postgres: ${c.works} works at once all COMPLETED, none stuck, within ${settings.timeoutSec} s`,
      `${c.complete}/${c.works} complete, ${c.stuck} stuck, ${ms(c.wallMs)} ms`,
      mark(c.complete === c.works && c.stuck === 0 && !c.timedOut),
    ])
  } else {
    rows.push(['postgres: works at once', 'not run (no Postgres)', '–'])
  }
  out(`${table(rows)}\n`)
  out(
    '\nwait = 202 (or the run’s creation) → pg-boss hands the job over: its polling, counted nowhere else.\n' +
      'job = the work-generation handler, from being handed the job to its return (run COMPLETED, items ' +
      'committed,\n  the provider alerts cleared); ours = job − stand-in; stand-in = the proxy’s view of the ' +
      'chat request\n  (request in → answer’s last byte out: the fake building and sending ~' +
      `${kb(report)} KB, plus two loopback hops).\n` +
      'before ask = job start → request at the stand-in; answer→finished_at = answer out → the finish ' +
      'transaction\n  begins (SDK reads and parses the answer, items checked, a log line); finish = ' +
      'finished_at → job return\n  (update the run, delete the old items and insert the new ones in one statement, update the ' +
      'work, activity row, commit,\n  then two notification clears). CPU = this process over the job ' +
      '(PGlite included when embedded;\n  with runs at once, theirs too).\n',
  )
}

/** Size of one answer of the stand-in, as the proxy passed it on. */
function kb(report: GenerationReport): number {
  const run = report.sequential.flatMap((result) => result.runs).find((r) => r.responseBytes > 0)
  return run ? round(run.responseBytes / 1024) : 0
}
