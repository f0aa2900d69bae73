import { Type } from 'typebox'
import { HttpError } from '../lib/errors.ts'

/** Per-index outcomes of a bulk call: every entry is tried, a failure never stops the others. */
export const BulkResultFields = {
  results: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), success: Type.Literal(true) })),
  errors: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), error: Type.String() })),
  summary: Type.Object({ total: Type.Integer(), successful: Type.Integer(), failed: Type.Integer() }),
}

export interface BulkResult {
  results: { index: number; id: string; success: true }[]
  errors: { index: number; id: string; error: string }[]
  summary: { total: number; successful: number; failed: number }
}

/**
 * Tries `action` on each id in turn: a refusal (an HttpError) is reported with its message at the id's
 * index, anything else as `Internal server error` after `unexpected` has logged it; neither stops the rest.
 */
export async function runBulk(
  ids: readonly string[],
  action: (id: string, index: number) => Promise<unknown>,
  unexpected: (error: unknown, id: string) => void,
): Promise<BulkResult> {
  const result: BulkResult = {
    results: [],
    errors: [],
    summary: { total: ids.length, successful: 0, failed: 0 },
  }
  for (const [index, id] of ids.entries()) {
    try {
      await action(id, index)
      result.results.push({ index, id, success: true })
    } catch (error) {
      if (!(error instanceof HttpError)) unexpected(error, id)
      result.errors.push({
        index,
        id,
        error: error instanceof HttpError ? error.message : 'Internal server error',
      })
    }
  }
  result.summary.successful = result.results.length
  result.summary.failed = result.errors.length
  return result
}

/** A bulk call's answer: `{success, message: '2 of 3 items approved', results, errors, summary}`. */
export const bulkAnswer = (result: BulkResult, noun: string, verb: string) => ({
  success: true as const,
  message: `${result.summary.successful} of ${result.summary.total} ${noun} ${verb}`,
  ...result,
})
