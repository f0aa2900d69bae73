import { definePlugin } from '../definition.ts'

export default definePlugin({
  id: 'github',
  name: 'GitHub',
  version: '1.0.0',
  description: 'Keeps each work’s website in a GitHub repository and runs its deploy workflows.',
  category: 'git',
  capabilities: ['git-host'],
  icon: { type: 'emoji', value: '🐙' },
  settingsSchema: {
    type: 'object',
    properties: {
      owner: {
        type: 'string',
        title: 'Repository owner',
        description:
          'The organisation or user website repositories are created under; the token’s user when empty',
        pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$',
        examples: ['curio-sites'],
      },
      token: {
        type: 'string',
        title: 'Access token',
        description: 'A token with the repo and workflow scopes; stored encrypted, never shown again',
        minLength: 1,
        maxLength: 500,
        examples: ['ghp_…'],
        'x-secret': true,
        'x-envVar': 'GITHUB_TOKEN',
      },
    },
    required: ['token'],
    additionalProperties: false,
  },
  systemPlugin: true,
  builtIn: true,
  autoEnable: false,
})
