import type { Module } from '../../http/modules.ts'
import type { PlatformEvents } from '../events.ts'
import { generationRoutes } from './routes.ts'
import {
  createGenerationService,
  GENERATION_JOB,
  GENERATION_RECOVERY_JOB,
  type GenerationServiceDeps,
} from './service.ts'

export interface GenerationModuleDeps extends GenerationServiceDeps {
  /** Generations one instance runs at once. */
  concurrency: number
}

/** AI generation of a work's items: the routes, the durable run job and the recovery of orphaned runs. */
export function generationModule(deps: GenerationModuleDeps) {
  const generation = createGenerationService(deps)
  const module: Module<PlatformEvents> = {
    name: 'generation',
    routes: (app) => generationRoutes(app, { generation }),
    jobs: [
      {
        name: GENERATION_JOB,
        handler: async ({ runId }: { runId: string }) => generation.run(runId),
        retryLimit: 2,
        retryDelaySeconds: 5,
        concurrency: deps.concurrency,
      },
      {
        name: GENERATION_RECOVERY_JOB,
        // Another instance's crash is noticed within a minute, without waiting for a restart.
        cron: '* * * * *',
        handler: async () => {
          await generation.recover()
        },
      },
    ],
    // A restart finds the runs its own crash left behind.
    onReady: async () => {
      await generation.recover()
    },
  }
  return { generation, module }
}
