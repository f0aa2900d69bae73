import { definePlugin } from '../definition.ts'

export default definePlugin({
  id: 'vercel',
  name: 'Vercel',
  version: '1.0.0',
  description: 'Hosts each work’s website on Vercel, deployed from its GitHub repository.',
  category: 'deployment',
  capabilities: ['deploy'],
  icon: { type: 'emoji', value: '▲' },
  settingsSchema: {
    type: 'object',
    properties: {
      teamScope: {
        type: 'string',
        title: 'Team',
        description: 'The Vercel team (slug or id) projects are created in; your personal account when empty',
        maxLength: 100,
        examples: ['my-team'],
      },
      token: {
        type: 'string',
        title: 'Access token',
        description: 'A Vercel access token; stored encrypted, never shown again',
        minLength: 1,
        maxLength: 500,
        examples: ['vercel_…'],
        'x-secret': true,
        'x-envVar': 'VERCEL_TOKEN',
      },
    },
    required: ['token'],
    additionalProperties: false,
  },
  systemPlugin: true,
  builtIn: true,
  autoEnable: false,
})
