import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { Type } from 'typebox'
import { CLIENT_FILES, clientFiles, clientTypesOf, staleFiles, staleMessage } from '../../scripts/openapi.ts'
import { ROOT } from '../helpers/markdown.ts'

const PROBE = '/api/client-check-probe'

describe('npm run openapi:check', () => {
  it('finds the committed client current, and a route added to the platform stales its document and types', async () => {
    // One build of both apps, with one route more on the platform than it has.
    const files = await clientFiles({
      extend: (service, app) => {
        if (service !== 'platform') return
        app.get(
          PROBE,
          {
            config: { access: 'public' },
            schema: {
              summary: 'A route the committed client does not know',
              description: 'Stands for a route added without running `npm run openapi`.',
              response: { 200: Type.Object({ probed: Type.Boolean() }) },
            },
          },
          async () => ({ probed: true }),
        )
      },
    })
    assert.deepEqual(await staleFiles(files), [
      'packages/client/openapi/platform.json',
      'packages/client/src/generated/platform.ts',
    ])
    const types = files.find((file) => file.path === CLIENT_FILES.platform.types)
    assert.match(types?.text ?? '', /"\/api\/client-check-probe": \{/)

    // Without the added route the platform's document is the committed one: the check compares like with like.
    const document = JSON.parse(
      files.find((file) => file.path === CLIENT_FILES.platform.document)?.text ?? '',
    )
    delete document.paths[PROBE]
    assert.equal(
      `${JSON.stringify(document, null, 2)}\n`,
      readFileSync(join(ROOT, 'packages/client/openapi/platform.json'), 'utf8'),
    )
  })

  it('a changed body schema changes the generated types, which the check compares', async () => {
    const committed = readFileSync(join(ROOT, 'packages/client/openapi/platform.json'), 'utf8')
    assert.equal(
      await clientTypesOf('platform', committed),
      readFileSync(CLIENT_FILES.platform.types, 'utf8'),
    )
    const document = JSON.parse(committed)
    const body = document.paths['/api/works'].post.requestBody.content['application/json'].schema
    body.properties.region = { type: 'string' }
    body.required.push('region')
    const changed = await clientTypesOf('platform', JSON.stringify(document))
    assert.notEqual(changed, readFileSync(CLIENT_FILES.platform.types, 'utf8'))
    assert.match(changed, /region: string;/)
  })

  it('names each stale file and the command that rewrites it', () => {
    const message = staleMessage(['packages/client/src/generated/platform.ts'])
    assert.match(message, /packages\/client\/src\/generated\/platform\.ts differs/)
    assert.match(message, /Run `npm run openapi`/)
  })
})
