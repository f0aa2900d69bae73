/**
 * Calls made in one turn of the event loop, run as one: `run` gets every call's input and answers each
 * one's output in the same order (a failure fails them all). Jobs fetched together start together, and those
 * that end together are recorded together: one statement for the lot, not one each.
 */
export function coalesced<In, Out>(run: (inputs: In[]) => Promise<Out[]>): (input: In) => Promise<Out> {
  let waiting: { input: In; resolve: (output: Out) => void; reject: (error: unknown) => void }[] = []
  const flush = () => {
    const calls = waiting
    waiting = []
    run(calls.map((call) => call.input)).then(
      (outputs) => {
        for (const [index, call] of calls.entries()) call.resolve(outputs[index] as Out)
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error)
      },
    )
  }
  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush)
      waiting.push({ input, resolve, reject })
    })
}
