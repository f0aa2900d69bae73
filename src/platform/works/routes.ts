import type { App } from '../../http/app.ts'
import { described, invalidField, NoContent } from '../../http/schemas.ts'
import { contextOf } from '../http/context.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  AddMemberBody,
  CreateWorkBody,
  Member,
  MemberList,
  MemberParams,
  UpdateWorkBody,
  Work,
  WorkList,
  WorkParams,
} from './schemas.ts'
import type { WorkService } from './service.ts'

const tags = ['works']
const blankName = invalidField('body.name', 'must not be blank')

export function workRoutes(app: App, { works }: { works: WorkService }) {
  app.post(
    '/api/works',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Create a work',
        description:
          'Creates a work you own. Without a slug one is derived from the name (`Café Guide` → `cafe-guide`, ' +
          'then the first of `cafe-guide-2`, `cafe-guide-3` … you do not use yet; creates of one name at once ' +
          'each get their own). A slug you send that you already use is 409 `SLUG_TAKEN`.',
        body: CreateWorkBody,
        response: {
          201: described(Work, 'The created work; you are its owner'),
          ...errors([400, blankName], 401, [409, 'SLUG_TAKEN'], 413, 415),
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await works.create(authOf(req).userId, req.body, contextOf(req))),
  )

  app.get(
    '/api/works',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'List your works',
        description: 'The works you own and those shared with you, newest first, each with your role.',
        response: { 200: WorkList, ...errors(401) },
      },
    },
    async (req) => ({ works: await works.list(authOf(req).userId) }),
  )

  app.get(
    '/api/works/:id',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Get a work',
        description: 'Any role may read a work; one you may not see is 404.',
        params: WorkParams,
        response: {
          200: described(Work, 'The work, with your role'),
          ...errors(401, [404, 'WORK_NOT_FOUND']),
        },
      },
    },
    async (req) => works.get(authOf(req).userId, req.params.id),
  )

  app.patch(
    '/api/works/:id',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Change a work',
        description:
          'Changes the name or description (null clears it). Owners and editors only: a viewer gets 403, ' +
          'anyone else 404.',
        params: WorkParams,
        body: UpdateWorkBody,
        response: {
          200: described(Work, 'The changed work'),
          ...errors([400, blankName], 401, [403, 'WORK_EDIT_FORBIDDEN'], [404, 'WORK_NOT_FOUND'], 413, 415),
        },
      },
    },
    async (req) => works.update(authOf(req).userId, req.params.id, req.body, contextOf(req)),
  )

  app.delete(
    '/api/works/:id',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Delete a work',
        description:
          'Deletes the work and its memberships. Owner only: members get 403, anyone else 404. Activity ' +
          'entries about it are kept, without the work id.',
        params: WorkParams,
        response: {
          204: described(NoContent, 'Deleted'),
          ...errors(401, [403, 'WORK_OWNER_REQUIRED'], [404, 'WORK_NOT_FOUND']),
        },
      },
    },
    async (req, reply) => {
      await works.delete(authOf(req).userId, req.params.id, contextOf(req))
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/api/works/:id/members',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'List who shares a work',
        description: 'The owner (role `owner`) first, then editors and viewers. Any role may read it.',
        params: WorkParams,
        response: { 200: MemberList, ...errors(401, [404, 'WORK_NOT_FOUND']) },
      },
    },
    async (req) => ({ members: await works.members(authOf(req).userId, req.params.id) }),
  )

  app.post(
    '/api/works/:id/members',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Share a work',
        description:
          'Adds an existing platform account as editor or viewer. Owner only. 404 `USER_NOT_FOUND` when no ' +
          'account has the email, 400 `ALREADY_OWNER` for the owner, 409 `ALREADY_MEMBER` for a member.',
        params: WorkParams,
        body: AddMemberBody,
        response: {
          201: described(Member, 'The new member'),
          ...errors(
            [400, invalidField('body.role', 'must be one of "editor", "viewer"'), 'ALREADY_OWNER'],
            401,
            [403, 'WORK_OWNER_REQUIRED'],
            [404, 'WORK_NOT_FOUND', 'USER_NOT_FOUND'],
            [409, 'ALREADY_MEMBER'],
            413,
            415,
          ),
        },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await works.addMember(authOf(req).userId, req.params.id, req.body, contextOf(req))),
  )

  app.delete(
    '/api/works/:id/members/:userId',
    {
      config: { access: 'jwt-or-api-key' },
      schema: {
        tags,
        summary: 'Stop sharing a work with someone',
        description: 'Removes a member; they lose access at once. Owner only; an unknown member is 404.',
        params: MemberParams,
        response: {
          204: described(NoContent, 'No longer shared with them'),
          ...errors(401, [403, 'WORK_OWNER_REQUIRED'], [404, 'WORK_NOT_FOUND', 'MEMBER_NOT_FOUND']),
        },
      },
    },
    async (req, reply) => {
      await works.removeMember(authOf(req).userId, req.params.id, req.params.userId)
      return reply.code(204).send(null)
    },
  )
}
