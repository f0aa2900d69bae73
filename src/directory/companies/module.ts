import type { Module } from '../../http/modules.ts'
import { companyRoutes } from './routes.ts'
import { type CompanyServiceDeps, createCompanyService } from './service.ts'

/** Companies: admin management, with how many items name each. */
export function companiesModule(deps: CompanyServiceDeps) {
  const companyService = createCompanyService(deps)
  const module: Module = {
    name: 'companies',
    routes: (app) => companyRoutes(app, { companyService }),
  }
  return { companies: companyService, module }
}
