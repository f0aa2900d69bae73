/**
 * Malformed requests, generated from each service's OpenAPI document: wrong types, missing fields, odd and
 * huge text, bad ids, bad JSON and media types, out-of-range numbers and dates, repeated parameters and bad
 * percent-encoding, sent anonymous and signed in. Every answer must keep the conventions every route
 * inherits (see test/harness/answers.ts).
 *
 * FUZZ_SEED replays a run (it is printed on failure, with the FUZZ_PATH of the failing request); FUZZ_RUNS
 * sets the number of requests over both services (`npm run test:fuzz` sends 20,000); FUZZ_ALL=1 lists every
 * kind of failure once instead of stopping at the first.
 */
import { describe, it, type TestContext } from 'node:test'
import fc from 'fast-check'
import { type AnswerRules, problemsOf } from './answers.ts'
import { type OpenApiDocument, operationsOf, responseValidators } from './openapi.ts'
import { type FuzzRequest, requestsFor, wrongMethods } from './requests.ts'
import { send } from './send.ts'
import { directoryTarget, platformTarget, type Target } from './targets.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 20261122)
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000)
const RUNS_PER_SERVICE = Math.max(1, Math.round(RUNS / 2))
/** Credentials are checked again after this many requests: a generated request may sign the admin out. */
const REFRESH_EVERY = 50
/** Keep going past failures and list each kind once, instead of stopping (and shrinking) at the first. */
const KEEP_GOING = process.env.FUZZ_ALL === '1'

const cut = (text: string, length = 300) => (text.length > length ? `${text.slice(0, length)}…` : text)

function generatorOf(target: Target, document: OpenApiDocument): fc.Arbitrary<FuzzRequest> {
  const operations = operationsOf(document)
  const sources = { auths: target.auths }
  const wrong = wrongMethods(operations, sources)
  return fc.oneof(
    ...operations.map((operation) => ({ weight: 10, arbitrary: requestsFor(operation, sources) })),
    ...(wrong ? [{ weight: 3, arbitrary: wrong }] : []),
  )
}

function rulesOf(target: Target, document: OpenApiDocument): AnswerRules {
  const statuses = new Map(
    operationsOf(document).map((operation) => [
      `${operation.method} ${operation.path}`,
      Object.keys(operation.responses),
    ]),
  )
  const mediaTypes = new Map(
    operationsOf(document).map((operation) => [`${operation.method} ${operation.path}`, operation.responses]),
  )
  const response = responseValidators(document)
  return {
    errorShape: target.errorShape,
    ...(target.errorShapeOf ? { errorShapeOf: target.errorShapeOf } : {}),
    response,
    responseOf: response,
    mediaTypes: (method, path, status) => mediaTypes.get(`${method} ${path}`)?.[String(status)]?.mediaTypes,
    declared: (method, path) => statuses.get(`${method} ${path}`),
    ...(target.prescribedServerError ? { prescribedServerError: target.prescribedServerError } : {}),
  }
}

async function fuzz(t: TestContext, start: () => Promise<Target>) {
  const target = await start()
  const counts = new Map<string, number>()
  const tally = (status: string) => counts.set(status, (counts.get(status) ?? 0) + 1)
  let sent = 0
  let checkedBodies = 0
  const succeeded = new Set<string>()
  const failures = new Map<string, string>()
  const document = target.app.swagger() as unknown as OpenApiDocument
  const operations = operationsOf(document).map((operation) => `${operation.method} ${operation.path}`)
  try {
    const rules = rulesOf(target, document)
    const property = fc.asyncProperty(generatorOf(target, document), async (request) => {
      if (++sent % REFRESH_EVERY === 0) await target.refresh()
      const outcome = await send(target.app, request, target.pools, target.credentials(request.auth))
      const status = 'answer' in outcome ? outcome.answer.status : 'no answer'
      tally(String(status))
      let problems: string[]
      let report: string
      if ('answer' in outcome) {
        const { answer } = outcome
        const type = String(answer.headers['content-type'])
        if (answer.status < 300) succeeded.add(request.operation)
        // A deleted resource's id is offered no more.
        if (answer.status < 300 && request.method === 'DELETE' && request.sent) {
          const [path = ''] = request.sent.url.split('?', 1)
          for (const segment of path.split('/')) target.pools.forget(segment)
        }
        if (answer.status < 300 && type.startsWith('application/json')) {
          target.pools.harvest(request.path, JSON.parse(answer.body))
          if (rules.response(request.method, request.path, answer.status)) checkedBodies++
        }
        await target.afterAnswer?.(request, answer)
        problems = problemsOf(request, answer, rules)
        report = `answered ${answer.status}: ${problems.join('; ')}\n  body: ${cut(answer.body)}`
      } else {
        problems = [outcome.failure]
        report = outcome.failure
      }
      if (problems.length === 0) return
      if (!KEEP_GOING) throw new Error(report)
      const kind = `${request.operation} → ${status} ${problems[0]!.slice(0, 50)}`
      if (!failures.has(kind)) failures.set(kind, `${fc.stringify(request)}\n  ${report}`)
    })
    await fc.assert(property, {
      seed: SEED,
      numRuns: RUNS_PER_SERVICE,
      includeErrorInReport: true,
      ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
    })
    if (failures.size > 0) {
      throw new Error(`${failures.size} kinds of failure:\n\n${[...failures.values()].join('\n\n')}`)
    }
  } catch (error) {
    throw new Error(
      `${target.name}: replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n${(error as Error).message}`,
    )
  } finally {
    const byStatus = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}×${n}`)
    t.diagnostic(
      `${target.name}: ${sent} requests (seed ${SEED}), ${checkedBodies} 2xx bodies checked against their ` +
        `schemas; answers by status: ${byStatus.join(', ')}`,
    )
    const neverServed = operations.filter((operation) => !succeeded.has(operation))
    if (neverServed.length > 0) t.diagnostic(`${target.name}: no 2xx answer from ${neverServed.join(', ')}`)
    await target.close()
  }
}

// Generous per-request allowance: a long FUZZ_RUNS run must not hit the suite's default timeout.
const timeout = Math.max(120_000, RUNS_PER_SERVICE * 40)

describe('malformed requests', () => {
  it('the platform keeps every convention under generated requests', { timeout }, (t) =>
    fuzz(t, platformTarget),
  )
  it('the directory keeps every convention under generated requests', { timeout }, (t) =>
    fuzz(t, directoryTarget),
  )
})
