/**
 * What the browser tests need before they run: Debian's Chromium (installed with apt-get when missing and
 * this user may install packages) and a build of the consoles as new as their sources.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { buildConsoles } from './build-web.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export async function prepareBrowserTests(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    if (process.getuid?.() !== 0)
      throw new Error(
        `No Chromium at ${CHROMIUM}: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH`,
      )
    process.stdout.write('Installing Chromium (apt-get install -y chromium)…\n')
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    let install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env,
    })
    if (install.status !== 0) {
      // A machine whose package lists are not there yet needs them read first.
      spawnSync('apt-get', ['update'], { stdio: 'inherit', env })
      install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
        stdio: 'inherit',
        env,
      })
    }
    if (install.status !== 0 || !existsSync(CHROMIUM)) throw new Error('Chromium could not be installed')
  }
  const built = await buildConsoles({ ifNeeded: true })
  if (built.length) process.stdout.write(`Built the ${built.join(' and ')} console for the browser tests\n`)
}
