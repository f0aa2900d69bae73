import { createAiProviderClient } from '../../../integrations/openai/client.ts'
import { definePlugin } from '../definition.ts'

export default definePlugin({
  id: 'openai',
  name: 'OpenAI',
  version: '1.0.0',
  description: 'Generates a work’s items with OpenAI or any OpenAI-compatible chat completions API.',
  category: 'ai-provider',
  capabilities: ['ai-provider'],
  icon: { type: 'emoji', value: '🤖' },
  settingsSchema: {
    type: 'object',
    properties: {
      baseUrl: {
        type: 'string',
        title: 'API base URL',
        description: 'An OpenAI-compatible API, up to and including its version path',
        format: 'uri',
        pattern: '^https?://',
        maxLength: 500,
        default: 'https://api.openai.com/v1',
        examples: ['https://api.openai.com/v1', 'https://openrouter.ai/api/v1'],
        'x-envVar': 'OPENAI_API_URL',
      },
      model: {
        type: 'string',
        title: 'Model',
        description: 'The model items are generated with; `GET /api/plugins/openai/models` lists them',
        minLength: 1,
        maxLength: 200,
        default: 'gpt-4o-mini',
        examples: ['gpt-4o-mini'],
      },
      apiKey: {
        type: 'string',
        title: 'API key',
        description: 'Sent as a bearer token to the provider; stored encrypted, never shown again',
        minLength: 1,
        maxLength: 500,
        examples: ['sk-proj-…'],
        'x-secret': true,
        'x-envVar': 'OPENAI_API_KEY',
      },
    },
    required: ['apiKey'],
    additionalProperties: false,
  },
  systemPlugin: false,
  builtIn: true,
  autoEnable: true,
  aiProvider: (settings, limits) => {
    const model = String(settings.model)
    const client = createAiProviderClient({
      baseUrl: String(settings.baseUrl),
      apiKey: String(settings.apiKey ?? ''),
      timeoutMs: limits.timeoutMs,
      maxRetries: limits.maxRetries,
      ...(limits.fetch ? { fetch: limits.fetch } : {}),
    })
    return {
      model,
      listModels: (signal) => client.listModels(signal),
      completeJson: (request) => client.completeJson({ ...request, model }),
    }
  },
})
