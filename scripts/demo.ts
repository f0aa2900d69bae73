/**
 * `npm run demo`: Curio without any provider account. Starts local stand-ins of OpenAI, GitHub and Vercel
 * (test/fakes/, on 127.0.0.1), fills the directory with its demo content (`seed --demo`), then runs
 * `npm start`'s command with the platform pointed at the stand-ins and their keys as the plugins'
 * environment fallbacks, on the embedded database in a folder of its own (DATA_DIR, default ./data-demo).
 * The stand-ins behave as the real services do in real time: generation answers a set of items for any
 * prompt, and a deploy creates a repository from the template and a deployment that goes QUEUED →
 * BUILDING → READY over a few seconds, at a local page. DEMO_STAND_INS names them in the banner, in
 * `GET /` and in the console. Never with NODE_ENV=production (the configuration refuses it too).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { startGitHubFake } from '../test/fakes/github.ts'
import { startVercelFake } from '../test/fakes/vercel.ts'
import { startDemoOpenAi } from './demo-openai.ts'

const CLI = resolve(import.meta.dirname, '..', 'src', 'cli.mjs')
const DEFAULT_DATA_DIR = './data-demo'
const GITHUB_TOKEN = 'ghp_demo_stand_in_token_0123456789'
const VERCEL_TOKEN = 'vercel_demo_stand_in_token_0123456789'
const ACCOUNT = 'curio-demo'
const TEMPLATE = `${ACCOUNT}/website-template`
/** How long a stand-in deployment stays QUEUED, then BUILDING, before it is READY. */
const DEPLOYMENT_STEPS_MS = [1500, 3000]
/** How often the platform asks the Vercel stand-in how a deployment stands (a real instance: 10 s). */
const DEMO_POLL_INTERVAL_MS = '2000'

/**
 * The template website repositories are created from: a deploy dispatches its workflow (the sample of
 * docs/deploying.md), which the Vercel stand-in answers with a deployment; nothing runs it.
 */
const TEMPLATE_FILES = {
  '.github/workflows/deploy_vercel.yaml': [
    'name: Deploy to Vercel',
    'on:',
    '  workflow_dispatch:',
    '  push:',
    '    branches: [main]',
    "    paths: ['.deployment-trigger']",
    'jobs:',
    '  deploy:',
    "    if: vars.DEPLOY_PROVIDER == 'vercel'",
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not JavaScript's
    '      - run: npx vercel deploy --prod --yes --token "${{ secrets.VERCEL_TOKEN }}"',
    '',
  ].join('\n'),
  'README.md': '# Website\n\nThe website of a Curio work, built from its data repository.\n',
  'package.json': '{ "name": "website", "private": true }\n',
}

/** NODE_ENV as the CLI will see it: the environment's, else the one in .env (which the CLI reads too). */
function nodeEnv(): string | undefined {
  if (process.env.NODE_ENV !== undefined) return process.env.NODE_ENV
  if (!existsSync('.env')) return undefined
  return parseEnv(readFileSync('.env', 'utf8')).NODE_ENV
}

function refuse(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

if (nodeEnv()?.trim() === 'production') {
  refuse(
    'npm run demo never runs with NODE_ENV=production: it points Curio at local stand-ins of OpenAI, GitHub ' +
      'and Vercel. Run it without NODE_ENV=production (in the environment and in .env).',
  )
}
// The shell's DATA_DIR only: a DATA_DIR in .env is the real instance's folder, which the demo leaves alone.
const dataDir = process.env.DATA_DIR?.trim() || DEFAULT_DATA_DIR
if (dataDir === 'memory') {
  refuse(
    'npm run demo keeps its data in a folder (the directory’s demo content is added before the start): ' +
      `leave DATA_DIR unset (${DEFAULT_DATA_DIR}) or name a folder.`,
  )
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/**
 * Where the Vercel stand-in's deployments "are": a page per project, saying what a real deploy would
 * serve there, so that the READY deployment's link opens something true instead of a vercel.app address
 * that is nobody's.
 */
async function startSites() {
  const deployed = new Map<string, { repository: string; at: Date }>()
  const server = createServer((req, res) => {
    const project = decodeURIComponent(new URL(req.url ?? '/', 'http://sites').pathname.slice(1))
    const site = deployed.get(project)
    res.setHeader('content-type', 'text/html; charset=utf-8')
    if (!site) {
      res.writeHead(404).end('<!doctype html><title>Not deployed</title><p>Nothing is deployed here.</p>')
      return
    }
    const name = escapeHtml(project)
    res
      .writeHead(200)
      .end(
        `<!doctype html><html lang="en"><meta charset="utf-8"><title>${name} (demo)</title>` +
          '<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">' +
          `<h1>${name}</h1><p>A deployment by the local stand-in of Vercel (Curio demo), started ` +
          `${escapeHtml(site.at.toISOString())}, of the repository <code>${escapeHtml(site.repository)}</code> ` +
          'that the stand-in of GitHub created from the website template.</p><p>On Vercel, the website built ' +
          'from that repository would be served here. The demo builds nothing: connect real GitHub and ' +
          'Vercel accounts to deploy for real (docs/demo.md).</p></body></html>',
      )
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    /** The page of `project`'s deployment, from now on. */
    deploy(project: string, repository: string) {
      deployed.set(project, { repository, at: new Date() })
      return `${url}/${encodeURIComponent(project)}`
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done())
        server.closeAllConnections()
      }),
  }
}

/** The three stand-ins, wired as the real services are: a dispatched deploy workflow makes a deployment. */
async function startStandIns() {
  const openai = await startDemoOpenAi()
  const github = await startGitHubFake({ token: GITHUB_TOKEN, login: ACCOUNT })
  github.addTemplate(TEMPLATE, TEMPLATE_FILES)
  const vercel = await startVercelFake({
    token: VERCEL_TOKEN,
    user: { username: ACCOUNT },
    advanceAfterMs: DEPLOYMENT_STEPS_MS,
  })
  const sites = await startSites()
  github.onDispatch(({ repo }) => {
    const project = repo.split('/')[1] ?? repo
    vercel.createDeployment(project, { url: sites.deploy(project, repo) })
  })
  return {
    env: {
      OPENAI_API_URL: openai.url,
      OPENAI_API_KEY: openai.apiKey,
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN,
      VERCEL_API_URL: vercel.url,
      VERCEL_TOKEN,
      WEBSITE_TEMPLATE_REPOSITORY: TEMPLATE,
      DEMO_STAND_INS: 'openai,github,vercel',
    },
    close: () => Promise.allSettled([openai.close(), github.close(), vercel.close(), sites.close()]),
  }
}

const standIns = await startStandIns()
// Explicit values win over .env, which the CLI reads after: the demo never reaches a real provider, a
// Postgres server or a mail server configured there, nor forwards analytics.
const env = {
  ...process.env,
  ...standIns.env,
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  PLATFORM_DATABASE_URL: '',
  DIRECTORY_DATABASE_URL: '',
  WORKERS: '1',
  SMTP_URL: '',
  ANALYTICS_WRITE_KEY: '',
  DEPLOY_POLL_INTERVAL_MS: process.env.DEPLOY_POLL_INTERVAL_MS || DEMO_POLL_INTERVAL_MS,
  // The demo content's links are example.com addresses: checking them would only mark them broken.
  LINK_CHECK_INTERVAL: process.env.LINK_CHECK_INTERVAL || 'off',
}

process.stdout.write(
  'Curio demo: OpenAI, GitHub and Vercel are local stand-ins on this machine; no account of theirs is needed.\n' +
    `  data       ${resolve(dataDir)} (the demo’s own folder: delete it to start over)\n`,
)

/** Runs the CLI with the demo's environment; its output is the terminal's unless `quiet`. */
const cli = (args: string[], { detached = false, quiet = false } = {}): ChildProcess =>
  spawn(process.execPath, [CLI, ...args], {
    env,
    stdio: ['ignore', quiet ? 'pipe' : 'inherit', 'inherit'],
    detached,
  })

// `seed --demo` says what it added, then how to look at it after `npm start`: only the first is the demo's.
const seed = cli(['seed', '--demo'], { quiet: true })
let seedOutput = ''
seed.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
  seedOutput += chunk
})
const [seeded] = (await once(seed, 'exit')) as [number | null]
if (seeded !== 0) {
  process.stdout.write(seedOutput)
  await standIns.close()
  process.exit(seeded ?? 1)
}
process.stdout.write(
  `  directory  ${seedOutput.split('\n')[0]}\n` +
    '  try it     open the console below, create an account, enable the OpenAI plugin (no key needed),\n' +
    '             make a work, generate its items and deploy it (docs/demo.md)\n',
)

// The server runs in a process group of its own, so that a Ctrl+C reaches it once, from here: a second
// signal would make it exit at once instead of shutting down.
const server = cli(['start'], { detached: true })
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    server.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal)
  })
}
process.on('exit', () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL')
})
const [code] = (await once(server, 'exit')) as [number | null]
await standIns.close()
process.exit(code ?? 1)
