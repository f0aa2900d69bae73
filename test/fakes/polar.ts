import { randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { models } from '@polar-sh/sdk/2026-10'
import type { Answer, Behaviour, RequestMatch, ScriptedFault, ScriptedRequest } from './scripted.ts'
import { parseBody, startScriptedFake } from './scripted.ts'

export const DEFAULT_POLAR_ACCESS_TOKEN = 'polar_oat_fake0123456789abcdefghijklmnopqrstuv'

export interface PolarFakeOptions {
  /** The token every request must present as `Authorization: Bearer <accessToken>`. */
  accessToken?: string
}

/** A request as Polar received it; `path` without the query, e.g. `/v1/checkouts/`. */
export interface PolarFakeRequest extends ScriptedRequest {
  /** The JSON body parsed, the raw text when it is not JSON, undefined when empty. */
  body: unknown
  authorization: string | undefined
  /** The `Polar-Version` header the SDK sends (its API version). */
  polarVersion: string | undefined
}

/** A created checkout, with the request as Polar received it. */
export interface PolarFakeCheckout {
  id: string
  products: string[]
  successUrl: string | null
  returnUrl: string | null
  customerEmail: string | null
  externalCustomerId: string | null
  /** `metadata`, as received. */
  metadata: Record<string, unknown>
  body: Record<string, unknown>
  checkout: models.Checkout
}

export interface PolarFakeSubscription {
  id: string
  productId: string
  status: models.SubscriptionStatus
  metadata: Record<string, string | number | boolean>
  createdAt: string
  canceledAt: string | null
  endedAt: string | null
}

type Issue = { type: string; loc: (string | number)[]; msg: string; input?: unknown }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const CHECKOUT_FIELDS = new Set([
  'trial_interval',
  'trial_interval_count',
  'metadata',
  'custom_field_data',
  'discount_id',
  'allow_discount_codes',
  'require_billing_address',
  'amount',
  'seats',
  'min_seats',
  'max_seats',
  'units',
  'min_units',
  'max_units',
  'allow_trial',
  'customer_id',
  'is_business_customer',
  'external_customer_id',
  'customer_name',
  'customer_email',
  'customer_ip_address',
  'customer_billing_name',
  'customer_billing_address',
  'customer_tax_id',
  'customer_metadata',
  'subscription_id',
  'success_url',
  'return_url',
  'embed_origin',
  'locale',
  'currency',
  'products',
  'prices',
])

const polarError = (status: number, error: string, detail: string): Answer => ({
  status,
  body: { error, detail },
})
/** FastAPI's 422, as Polar answers a request its schema refuses. */
const invalid = (issues: Issue[]): Answer => ({ status: 422, body: { detail: issues } })

/** The default body of an injected fault, as Polar (or the proxy in front of it) words that status. */
function faultBody(status: number): unknown {
  if (status === 502 || status === 503 || status === 504) return '<html><body>Bad Gateway</body></html>'
  if (status === 401) return polarError(401, 'Unauthorized', 'Unauthorized').body
  if (status === 429) return polarError(429, 'TooManyRequests', 'Rate limit exceeded').body
  if (status >= 500) return 'Internal Server Error'
  if (status === 404) return polarError(404, 'ResourceNotFound', 'Not found').body
  return polarError(status, 'BadRequest', 'Bad request').body
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `metadata` as Polar takes it: at most 50 keys of at most 40 characters; strings of at most 500, numbers, booleans. */
function metadataIssues(value: unknown): Issue[] {
  if (value === undefined) return []
  if (!isRecord(value))
    return [{ type: 'dict_type', loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary' }]
  const entries = Object.entries(value)
  const issues: Issue[] = []
  if (entries.length > 50) {
    issues.push({
      type: 'too_long',
      loc: ['body', 'metadata'],
      msg: 'Dictionary should have at most 50 items',
    })
  }
  for (const [key, item] of entries) {
    const loc = ['body', 'metadata', key]
    if (key.length > 40)
      issues.push({ type: 'string_too_long', loc, msg: 'Key should have at most 40 characters' })
    const ok =
      (typeof item === 'string' && item.length <= 500) ||
      typeof item === 'boolean' ||
      (typeof item === 'number' && Number.isFinite(item))
    if (!ok)
      issues.push({
        type: 'value_error',
        loc,
        msg: 'Value should be a string of at most 500 characters, a number or a boolean',
        input: item,
      })
  }
  return issues
}

/** A product as a checkout shows it: without its metadata, custom fields and deletability. */
function checkoutProductOf(product: models.Product): models.CheckoutProduct {
  const { metadata: _metadata, is_deletable: _deletable, attached_custom_fields: _fields, ...shown } = product
  return { ...shown, benefits: [] }
}

/** An answer instead of the real one; a string body is sent as is (text), anything else as JSON. */
export type PolarFakeFault = ScriptedFault

export type PolarFakeBehaviour = Behaviour<PolarFakeFault>

export type PolarFakeMatch = RequestMatch

/**
 * A stand-in for Polar's API (https://polar.sh/docs/api-reference) on 127.0.0.1, what sponsor-ad checkout
 * calls, as the official `@polar-sh/sdk` (API version 2026-10, `Polar-Version` header) sends and reads it:
 *
 * - `POST /v1/checkouts/`: a `CheckoutCreate`. `products` (uuids of existing products, the first selected),
 *   `metadata` (at most 50 keys of at most 40 characters; strings of at most 500, numbers, booleans),
 *   `success_url` / `return_url` (URLs), `customer_email`, `external_customer_id`; any other field of the
 *   schema is taken, an unknown one refused. Answers 201 with the full `Checkout` (status `open`).
 * - `GET /v1/checkouts/{id}`, `GET /v1/subscriptions/{id}`.
 * - `DELETE /v1/subscriptions/{id}` revokes at once: the subscription `canceled` and ended. A revoked one is
 *   403 `AlreadyCanceledSubscription`, an unknown one 404 `ResourceNotFound`, an id that is not a uuid 422.
 *
 * Every request needs `Authorization: Bearer <accessToken>`: otherwise 401 `{error:'Unauthorized', detail}`.
 * Errors are `{error, detail}`; a refused body is FastAPI's 422 `{detail:[{type, loc, msg, input}]}`. Every
 * answer is typed with the SDK's models, so it has every field they require. Seed with `addProduct` and
 * `addSubscription`; `fail(match, behaviour, times)` answers with a status (502–504 as an HTML proxy page,
 * 500 as text, unless a body is given) or holds requests open until `release()` / `close()`; no timers.
 */
export async function startPolarFake({ accessToken = DEFAULT_POLAR_ACCESS_TOKEN }: PolarFakeOptions = {}) {
  const organizationId = randomUUID()
  const products = new Map<string, models.Product>()
  const checkouts: PolarFakeCheckout[] = []
  const subscriptions = new Map<string, PolarFakeSubscription>()
  const now = () => new Date().toISOString()

  function addProduct(
    input: {
      id?: string
      name?: string
      interval?: models.Product['recurring_interval']
      priceAmount?: number
    } = {},
  ): models.Product {
    const id = input.id ?? randomUUID()
    const created = now()
    const interval = input.interval === undefined ? 'month' : input.interval
    const product: models.Product = {
      id,
      created_at: created,
      modified_at: null,
      trial_interval: null,
      trial_interval_count: null,
      name: input.name ?? `Sponsored listing (${interval ?? 'once'})`,
      description: null,
      visibility: 'public',
      recurring_interval: interval,
      recurring_interval_count: interval ? 1 : null,
      meter_interval: null,
      meter_interval_count: null,
      is_recurring: interval !== null,
      is_archived: false,
      organization_id: organizationId,
      metadata: {},
      is_deletable: true,
      prices: [
        {
          created_at: created,
          modified_at: null,
          id: randomUUID(),
          source: 'catalog',
          amount_type: 'fixed',
          price_currency: 'usd',
          tax_behavior: null,
          is_archived: false,
          product_id: id,
          price_amount: input.priceAmount ?? 10_000,
        },
      ],
      benefits: [],
      medias: [],
      attached_custom_fields: [],
    }
    products.set(id, product)
    return product
  }

  function addSubscription(
    input: {
      id?: string
      productId?: string
      status?: models.SubscriptionStatus
      metadata?: Record<string, string | number | boolean>
    } = {},
  ): PolarFakeSubscription {
    const productId = input.productId ?? addProduct().id
    if (!products.has(productId)) throw new Error(`polar fake: no product ${productId}`)
    const status = input.status ?? 'active'
    const created = now()
    const subscription: PolarFakeSubscription = {
      id: input.id ?? randomUUID(),
      productId,
      status,
      metadata: input.metadata ?? {},
      createdAt: created,
      canceledAt: status === 'canceled' ? created : null,
      endedAt: status === 'canceled' ? created : null,
    }
    subscriptions.set(subscription.id, subscription)
    return subscription
  }

  function subscriptionAnswer(subscription: PolarFakeSubscription): models.Subscription {
    const product = products.get(subscription.productId)!
    const customerId = randomUUID()
    const periodEnd = new Date(Date.parse(subscription.createdAt) + 30 * 24 * 3600_000).toISOString()
    return {
      created_at: subscription.createdAt,
      modified_at: subscription.canceledAt,
      id: subscription.id,
      amount: 10_000,
      currency: 'usd',
      recurring_interval: product.recurring_interval ?? 'month',
      recurring_interval_count: 1,
      status: subscription.status,
      current_period_start: subscription.createdAt,
      current_period_end: periodEnd,
      current_meter_period_start: null,
      current_meter_period_end: null,
      trial_start: null,
      trial_end: null,
      cancel_at_period_end: false,
      canceled_at: subscription.canceledAt,
      started_at: subscription.createdAt,
      ends_at: subscription.endedAt,
      ended_at: subscription.endedAt,
      pause_at_period_end: false,
      paused_at: null,
      resumes_at: null,
      customer_id: customerId,
      product_id: product.id,
      discount_id: null,
      checkout_id: null,
      units: null,
      customer_cancellation_reason: null,
      customer_cancellation_comment: null,
      metadata: subscription.metadata,
      customer: {
        id: customerId,
        created_at: subscription.createdAt,
        modified_at: null,
        metadata: {},
        external_id: null,
        email: 'ada@example.com',
        email_verified: true,
        type: 'individual',
        name: null,
        billing_name: null,
        billing_address: null,
        tax_id: null,
        organization_id: organizationId,
        deleted_at: null,
        first_user_event_at: null,
        avatar_url: null,
      },
      product,
      discount: null,
      prices: product.prices,
      meters: [],
      pending_update: null,
    }
  }

  function createCheckout(body: unknown): Answer {
    if (!isRecord(body))
      return invalid([
        { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary' },
      ])
    const issues: Issue[] = []
    for (const key of Object.keys(body)) {
      if (!CHECKOUT_FIELDS.has(key)) {
        issues.push({
          type: 'extra_forbidden',
          loc: ['body', key],
          msg: 'Extra inputs are not permitted',
          input: body[key],
        })
      }
    }
    const productIds = body.products
    if (!Array.isArray(productIds) || productIds.length === 0) {
      issues.push({
        type: 'too_short',
        loc: ['body', 'products'],
        msg: 'List should have at least 1 item after validation',
        input: productIds,
      })
    } else {
      for (const [index, id] of productIds.entries()) {
        if (typeof id !== 'string' || !UUID.test(id)) {
          issues.push({
            type: 'uuid_parsing',
            loc: ['body', 'products', index],
            msg: 'Input should be a valid UUID',
            input: id,
          })
        } else if (!products.has(id)) {
          issues.push({
            type: 'value_error',
            loc: ['body', 'products', index],
            msg: 'Product does not exist.',
            input: id,
          })
        }
      }
    }
    for (const field of ['success_url', 'return_url'] as const) {
      const value = body[field]
      if (value !== undefined && value !== null && (typeof value !== 'string' || !URL.canParse(value))) {
        issues.push({
          type: 'url_parsing',
          loc: ['body', field],
          msg: 'Input should be a valid URL',
          input: value,
        })
      }
    }
    const email = body.customer_email
    if (
      email !== undefined &&
      email !== null &&
      (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
    ) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'customer_email'],
        msg: 'value is not a valid email address',
        input: email,
      })
    }
    issues.push(...metadataIssues(body.metadata))
    if (issues.length > 0) return invalid(issues)

    const selected = products.get((productIds as string[])[0]!)!
    const price = selected.prices[0]!
    const amount = 'price_amount' in price ? price.price_amount : 0
    const id = randomUUID()
    const clientSecret = `polar_c_${randomBytes(24).toString('base64url')}`
    const created = now()
    const text = (value: unknown) => (typeof value === 'string' ? value : null)
    const checkout: models.Checkout = {
      id,
      created_at: created,
      modified_at: null,
      custom_field_data: {},
      payment_processor: 'stripe',
      status: 'open',
      client_secret: clientSecret,
      url: `https://polar.sh/checkout/${clientSecret}`,
      expires_at: new Date(Date.parse(created) + 3600_000).toISOString(),
      success_url: text(body.success_url) ?? `https://polar.sh/checkout/${clientSecret}/confirmation`,
      return_url: text(body.return_url),
      embed_origin: null,
      amount,
      units: null,
      min_units: null,
      max_units: null,
      discount_amount: 0,
      net_amount: amount,
      tax_amount: null,
      tax_behavior: null,
      total_amount: amount,
      currency: price.price_currency,
      allow_trial: null,
      active_trial_interval: null,
      active_trial_interval_count: null,
      trial_end: null,
      organization_id: organizationId,
      product_id: selected.id,
      product_price_id: price.id,
      discount_id: null,
      allow_discount_codes: true,
      require_billing_address: false,
      is_discount_applicable: true,
      is_free_product_price: amount === 0,
      is_payment_required: amount > 0,
      is_payment_setup_required: selected.is_recurring,
      is_payment_form_required: amount > 0,
      customer_id: null,
      is_business_customer: false,
      customer_name: null,
      customer_email: text(email),
      customer_ip_address: null,
      customer_billing_name: null,
      customer_billing_address: null,
      customer_tax_id: null,
      payment_method_type: null,
      payment_processor_metadata: { publishable_key: 'pk_test_fake' },
      billing_address_fields: {
        country: 'required',
        state: 'disabled',
        city: 'disabled',
        postal_code: 'disabled',
        line1: 'disabled',
        line2: 'disabled',
      },
      trial_interval: null,
      trial_interval_count: null,
      metadata: (body.metadata as Record<string, string | number | boolean> | undefined) ?? {},
      external_customer_id: text(body.external_customer_id),
      products: (productIds as string[]).map((productId) => checkoutProductOf(products.get(productId)!)),
      product: checkoutProductOf(selected),
      product_price: price,
      prices: Object.fromEntries(
        (productIds as string[]).map((productId) => [productId, products.get(productId)!.prices]),
      ),
      discount: null,
      subscription_id: null,
      attached_custom_fields: [],
      customer_metadata: {},
    }
    checkouts.push({
      id,
      products: productIds as string[],
      successUrl: text(body.success_url),
      returnUrl: text(body.return_url),
      customerEmail: text(email),
      externalCustomerId: text(body.external_customer_id),
      metadata: (body.metadata as Record<string, unknown> | undefined) ?? {},
      body,
      checkout,
    })
    return { status: 201, body: checkout }
  }

  function route(method: string, path: string, body: unknown): Answer {
    if (path === '/v1/checkouts/' && method === 'POST') return createCheckout(body)
    const checkoutPath = /^\/v1\/checkouts\/([^/]+)$/.exec(path)
    if (checkoutPath && method === 'GET') {
      const found = checkouts.find((checkout) => checkout.id === decodeURIComponent(checkoutPath[1]!))
      return found ? { status: 200, body: found.checkout } : polarError(404, 'ResourceNotFound', 'Not found')
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
    if (subscriptionPath && (method === 'GET' || method === 'DELETE')) {
      const id = decodeURIComponent(subscriptionPath[1]!)
      if (!UUID.test(id)) {
        return invalid([
          { type: 'uuid_parsing', loc: ['path', 'id'], msg: 'Input should be a valid UUID', input: id },
        ])
      }
      const subscription = subscriptions.get(id)
      if (!subscription) return polarError(404, 'ResourceNotFound', 'Not found')
      if (method === 'DELETE') {
        if (subscription.endedAt) {
          return polarError(403, 'AlreadyCanceledSubscription', 'This subscription is already revoked.')
        }
        subscription.status = 'canceled'
        subscription.canceledAt = now()
        subscription.endedAt = subscription.canceledAt
      }
      return { status: 200, body: subscriptionAnswer(subscription) }
    }
    return { status: 404, body: { detail: 'Not Found' } }
  }

  function respond(req: IncomingMessage, { method, path, body }: PolarFakeRequest): Answer {
    if (req.headers.authorization !== `Bearer ${accessToken}`)
      return polarError(401, 'Unauthorized', 'Unauthorized')
    return route(method, path, body)
  }

  const fake = await startScriptedFake<PolarFakeBehaviour, PolarFakeMatch, PolarFakeRequest>({
    faultBody,
    log(req, text) {
      const version = req.headers['polar-version']
      return {
        body: parseBody(text),
        authorization: req.headers.authorization,
        polarVersion: Array.isArray(version) ? version[0] : version,
      }
    },
    respond,
    types: { text: 'text/html; charset=utf-8', json: 'application/json' },
    headers: (answer): Record<string, string> => (answer.status === 429 ? { 'retry-after': '1' } : {}),
  })

  return Object.assign(fake.controls, {
    /** The server's address, as POLAR_API_URL takes it. */
    url: fake.url,
    accessToken,
    organizationId,
    /** Every request, in order. */
    requests: fake.requests,
    /** Every checkout created, in order. */
    checkouts,
    products,
    subscriptions,
    addProduct,
    addSubscription,
  })
}

export type PolarFake = Awaited<ReturnType<typeof startPolarFake>>
