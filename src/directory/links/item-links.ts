/**
 * An item's link check, as the items module needs it (`ItemLinks`): items cannot import links, whose table
 * references items, so `app.ts` hands them this.
 */
import { sql } from 'drizzle-orm'
import type { ItemLinks } from '../items/relations.ts'
import { itemLinks } from './tables.ts'

export const itemLinkChecks: ItemLinks = {
  linkOf: (itemId, url) =>
    sql<Record<
      string,
      unknown
    > | null>`(select json_build_object('status', ${itemLinks.status}, 'httpStatus', ${itemLinks.httpStatus}, 'finalUrl', ${itemLinks.finalUrl}, 'reason', ${itemLinks.reason}, 'checkedAt', ${itemLinks.checkedAt}, 'failures', ${itemLinks.failures}) from ${itemLinks} where ${itemLinks.itemId} = ${itemId} and ${itemLinks.url} = ${url})`,

  withStatus: (itemId, url, status) =>
    status === 'unchecked'
      ? sql`not exists (select 1 from ${itemLinks} where ${itemLinks.itemId} = ${itemId} and ${itemLinks.url} = ${url} and ${itemLinks.status} <> 'unchecked')`
      : sql`exists (select 1 from ${itemLinks} where ${itemLinks.itemId} = ${itemId} and ${itemLinks.url} = ${url} and ${itemLinks.status} = ${status})`,
}
