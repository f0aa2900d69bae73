/**
 * Other commits checked out for a before/after benchmark: `git worktree add --detach` in a temporary
 * folder whose node_modules links to this repository's. `removeWorktrees` is synchronous, so that it also
 * runs from an exit handler after Ctrl-C.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from './lib.ts'

export function git(args: string[]): string {
  const result = spawnSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(
      `git ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr.trim()}`,
    )
  }
  return result.stdout.trim()
}

/** The commit a ref names; fails with git's own message when there is none. */
export function commitOf(ref: string): string {
  if (ref.startsWith('-')) throw new Error(`not a git ref: ${ref}`)
  return git(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])
}

/** This working tree as a benchmark names it: HEAD and how many files differ from it. */
export function workingTree(): { head: string; uncommittedFiles: number } {
  // --no-optional-locks: reading the status must not refresh the index that others are using.
  const uncommitted = git(['--no-optional-locks', 'status', '--porcelain'])
  return { head: commitOf('HEAD'), uncommittedFiles: uncommitted ? uncommitted.split('\n').length : 0 }
}

export interface Worktree {
  dir: string
  commit: string
}
const worktrees: Worktree[] = []

/** A detached checkout of `commit` in a temporary folder named after `bench`, sharing node_modules. */
export function addWorktree(commit: string, bench: string): Worktree {
  const dir = mkdtempSync(join(tmpdir(), `curio-bench-${bench}-`))
  const worktree = { dir, commit }
  worktrees.push(worktree)
  git(['worktree', 'add', '--detach', dir, commit])
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return worktree
}

function removeWorktree(worktree: Worktree) {
  // The link goes first, so that nothing that deletes the folder can reach the shared node_modules.
  try {
    unlinkSync(join(worktree.dir, 'node_modules'))
  } catch {}
  const result = spawnSync('git', ['-C', REPO_ROOT, 'worktree', 'remove', '--force', worktree.dir], {
    encoding: 'utf8',
  })
  if (result.status !== 0) {
    process.stderr.write(`note: git worktree remove ${worktree.dir}: ${result.stderr.trim()}\n`)
    rmSync(worktree.dir, { recursive: true, force: true })
    spawnSync('git', ['-C', REPO_ROOT, 'worktree', 'prune'], { stdio: 'ignore' })
  }
}

/** Removes every worktree `addWorktree` made and not yet removed. */
export function removeWorktrees() {
  for (const worktree of worktrees.splice(0)) removeWorktree(worktree)
}
