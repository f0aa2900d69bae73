import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { errors } from '../http/schemas.ts'
import { CATEGORIES_FILE, type CategoryGitService } from './git.ts'
import {
  CATEGORY_ID_MAX_LENGTH,
  CATEGORY_ID_PATTERN,
  CATEGORY_NAME_MAX_LENGTH,
  CATEGORY_NAME_MIN_LENGTH,
} from './schemas.ts'

const tags = ['categories']
const PATH = '/api/admin/categories/git'

const FILE_FORMAT =
  `The data repository (\`DATA_REPOSITORY\`, \`owner/name\`) keeps its categories in \`${CATEGORIES_FILE}\` ` +
  'at the repository root on the default branch: a JSON array of `{"id": "ai-tools", "name": "AI Tools"}`. ' +
  'Needs `DATA_REPOSITORY` and `GIT_TOKEN`: 500 when either is unset. 502 when the Git host refuses the ' +
  'token, cannot find the repository or cannot be reached.'

const GitCategory = Type.Object({
  id: Type.String({ examples: ['ai-tools'] }),
  name: Type.String({ examples: ['AI Tools'] }),
})

const GitCategoryBody = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: CATEGORY_ID_MAX_LENGTH,
      pattern: CATEGORY_ID_PATTERN,
      description: 'a slug',
      examples: ['ai-tools'],
    }),
    name: Type.String({
      minLength: CATEGORY_NAME_MIN_LENGTH,
      maxLength: CATEGORY_NAME_MAX_LENGTH,
      pattern: '\\S',
      description: `${CATEGORY_NAME_MIN_LENGTH} to ${CATEGORY_NAME_MAX_LENGTH} characters once trimmed`,
      examples: ['AI Tools'],
    }),
  },
  { examples: [{ id: 'ai-tools', name: 'AI Tools' }] },
)

const GitStatusAnswer = Type.Object(
  {
    success: Type.Literal(true),
    status: Type.Object({
      repository: Type.String({ examples: ['acme/awesome-data'] }),
      branch: Type.String({ description: "the repository's default branch", examples: ['main'] }),
      lastCommit: Type.Union([Type.String(), Type.Null()], {
        description: `sha of the newest commit touching ${CATEGORIES_FILE}, else of the branch head; null in an empty repository`,
      }),
      lastCommitDate: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      isUpToDate: Type.Boolean({
        description: `whether the active categories stored here (id and name) are exactly those of ${CATEGORIES_FILE}`,
      }),
    }),
    categories: Type.Array(GitCategory, {
      description: `the entries of ${CATEGORIES_FILE}; empty when it is missing`,
    }),
    message: Type.String({ examples: ['The stored categories match the data repository'] }),
  },
  {
    description: 'The data repository and its categories',
    examples: [
      {
        success: true,
        status: {
          repository: 'acme/awesome-data',
          branch: 'main',
          lastCommit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
          lastCommitDate: '2026-11-20T16:45:00Z',
          isUpToDate: true,
        },
        categories: [{ id: 'ai-tools', name: 'AI Tools' }],
        message: 'The stored categories match the data repository',
      },
    ],
  },
)

const GitCommitAnswer = Type.Object(
  {
    success: Type.Literal(true),
    category: GitCategory,
    message: Type.String({ examples: ['Category added to the data repository'] }),
  },
  {
    description: 'Committed, or already there',
    examples: [
      {
        success: true,
        category: { id: 'ai-tools', name: 'AI Tools' },
        message: 'Category added to the data repository',
      },
    ],
  },
)

/** What the Git host answers when it fails. */
const GIT_502 = [502, 'GIT_HOST_ERROR', 'GIT_AUTH_FAILED', 'GIT_REPO_NOT_FOUND', 'GIT_FILE_INVALID'] as const

export interface CategoryGitRouteDeps {
  categoryGit: CategoryGitService
}

/** Register before `categoryRoutes`, whose `/:id` would otherwise be tried for `git`. */
export function categoryGitRoutes(app: App, { categoryGit }: CategoryGitRouteDeps) {
  app.get(
    PATH,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'Categories in the Git data repository',
        description: `The repository, its default branch, the last commit and its date, the entries of the file and whether the stored categories match them. ${FILE_FORMAT}`,
        response: { 200: GitStatusAnswer, ...errors(401, [500, 'GIT_NOT_CONFIGURED'], GIT_502) },
      },
    },
    async () => ({ success: true as const, ...(await categoryGit.status()) }),
  )

  app.post(
    PATH,
    {
      config: { access: 'admin-401' },
      schema: {
        tags,
        summary: 'Commit a category to the Git data repository',
        description:
          `Adds \`{id, name}\` to the file, or renames the entry with that id, in one commit on the default ` +
          'branch (`Add category <name>` or `Update category <name>`); nothing is committed when the entry is ' +
          'already there. When the file changes in between, it is read again and the commit retried once; ' +
          `409 if it changed again. ${FILE_FORMAT}`,
        body: GitCategoryBody,
        response: {
          200: GitCommitAnswer,
          ...errors(
            400,
            401,
            [403, 'CROSS_ORIGIN'],
            [409, 'GIT_FILE_CHANGED'],
            [500, 'GIT_NOT_CONFIGURED'],
            GIT_502,
          ),
        },
      },
    },
    async (req) => ({ success: true as const, ...(await categoryGit.commit(req.body)) }),
  )
}
