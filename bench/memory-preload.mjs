/**
 * Preloaded into a Curio child by bench:burst (`NODE_OPTIONS=--import …`): on SIGUSR2 it prints one line
 * on stderr, `bench-memory {…}`, with process.memoryUsage() in MB. No collection is forced: the figures are
 * the process as it stands. Plain JavaScript with node: built-ins only (see heap-preload.mjs).
 */
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10

process.on('SIGUSR2', () => {
  const usage = process.memoryUsage()
  const figures = Object.fromEntries(Object.entries(usage).map(([name, bytes]) => [name, mb(bytes)]))
  process.stderr.write(`bench-memory ${JSON.stringify(figures)}\n`)
})
