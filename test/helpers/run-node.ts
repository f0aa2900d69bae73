import { spawn } from 'node:child_process'
import { once } from 'node:events'

export interface NodeRun {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `args` with this process's Node to its exit, and answers its exit code and what it wrote. */
export async function runNode(
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv },
): Promise<NodeRun> {
  const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, stdout, stderr }
}
