import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Answer, Behaviour, RequestMatch, ScriptedFault, ScriptedRequest } from './scripted.ts'
import { startScriptedFake } from './scripted.ts'

export const DEFAULT_STRIPE_API_KEY = 'sk_test_fake_0123456789abcdefghijklmn'

export interface StripeFakeOptions {
  /** The secret key every request must present as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
}

/** A form body decoded the way Stripe reads it: `a[b][0][c]=v` → `{a:{b:[{c:'v'}]}}`. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue }
export type FormObject = { [key: string]: FormValue }

/** A request as Stripe received it; `path` without the query, e.g. `/v1/checkout/sessions`. */
export interface StripeFakeRequest extends ScriptedRequest {
  body: FormObject
  authorization: string | undefined
  idempotencyKey: string | undefined
  stripeVersion: string | undefined
}

export interface StripeFakePrice {
  id: string
  object: 'price'
  active: boolean
  currency: string
  unit_amount: number
  type: 'recurring' | 'one_time'
  recurring: { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number } | null
  product: string
  created: number
  livemode: false
  metadata: Record<string, string>
}

/** A created checkout session, with its parameters as Stripe received them. */
export interface StripeFakeCheckout {
  id: string
  url: string
  mode: string
  lineItems: { price: string; quantity: number }[]
  successUrl: string | null
  cancelUrl: string | null
  customerEmail: string | null
  clientReferenceId: string | null
  metadata: Record<string, string>
  /** `subscription_data[metadata]`. */
  subscriptionMetadata: Record<string, string>
  /** The whole decoded body. */
  params: FormObject
  /** The session as answered. */
  session: Record<string, unknown>
}

export interface StripeFakeSubscription {
  id: string
  status: 'active' | 'past_due' | 'trialing' | 'canceled'
  metadata: Record<string, string>
  created: number
  canceledAt: number | null
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const randomId = (prefix: string, length = 24) =>
  prefix + Array.from(randomBytes(length), (byte) => ALPHABET[byte % ALPHABET.length]).join('')

const CHECKOUT_PARAMS = new Set([
  'mode',
  'line_items',
  'success_url',
  'cancel_url',
  'customer',
  'customer_email',
  'client_reference_id',
  'metadata',
  'subscription_data',
  'allow_promotion_codes',
  'billing_address_collection',
  'locale',
  'expires_at',
  'payment_method_types',
  'ui_mode',
  'expand',
])
const SUBSCRIPTION_DATA_PARAMS = new Set([
  'metadata',
  'description',
  'trial_period_days',
  'trial_end',
  'billing_cycle_anchor',
  'default_tax_rates',
  'proration_behavior',
])

const stripeError = (
  status: number,
  type: string,
  message: string,
  extra: { code?: string; param?: string } = {},
): Answer => ({
  status,
  body: {
    error: {
      ...(extra.code
        ? {
            code: extra.code,
            doc_url: `https://stripe.com/docs/error-codes/${extra.code.replaceAll('_', '-')}`,
          }
        : {}),
      message,
      ...(extra.param ? { param: extra.param } : {}),
      type,
    },
  },
})
const invalid = (message: string, extra: { code?: string; param?: string } = {}) =>
  stripeError(400, 'invalid_request_error', message, extra)
/** 404 for the object a path names; 400 for one a parameter names, as Stripe answers them. */
const noSuch = (what: string, id: string, param?: string) =>
  stripeError(param ? 400 : 404, 'invalid_request_error', `No such ${what}: '${id}'`, {
    code: 'resource_missing',
    ...(param ? { param } : {}),
  })

/** The default body of an injected fault, as Stripe words that status. */
function faultBody(status: number): unknown {
  if (status === 401) return invalidKey('sk_test_unknown').body
  if (status === 429) {
    return stripeError(429, 'invalid_request_error', 'Request rate limit exceeded.', { code: 'rate_limit' })
      .body
  }
  if (status === 502 || status === 503 || status === 504) return '<html><body>Bad gateway</body></html>'
  if (status >= 500) return stripeError(status, 'api_error', 'An unknown error occurred').body
  return invalid('Invalid request').body
}

function invalidKey(key: string): Answer {
  const masked = `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`
  return stripeError(401, 'invalid_request_error', `Invalid API Key provided: ${masked}`, {
    code: 'api_key_invalid',
  })
}

/** Stripe's form encoding read back: `line_items[0][price]` as nested objects, numeric keys as arrays. */
export function decodeForm(text: string): FormObject {
  const root: FormObject = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replaceAll(']', '').split('[')
    let node: FormObject = root
    for (const [index, part] of parts.entries()) {
      if (index === parts.length - 1) {
        node[part] = value
      } else {
        const next = node[part]
        if (typeof next !== 'object' || Array.isArray(next)) node[part] = {}
        node = node[part] as FormObject
      }
    }
  }
  const arrays = (value: FormValue): FormValue => {
    if (typeof value === 'string' || Array.isArray(value)) return value
    const keys = Object.keys(value)
    const converted = Object.fromEntries(keys.map((key) => [key, arrays(value[key]!)]))
    if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
      return keys.sort((a, b) => Number(a) - Number(b)).map((key) => converted[key]!)
    }
    return converted
  }
  return arrays(root) as FormObject
}

const isObject = (value: FormValue | undefined): value is FormObject =>
  typeof value === 'object' && !Array.isArray(value)
const text = (value: FormValue | undefined): string | null => (typeof value === 'string' ? value : null)

/** `metadata` as Stripe takes it: at most 50 keys of at most 40 characters, values of at most 500. */
function metadataOf(value: FormValue | undefined, param: string): Record<string, string> | Answer {
  if (value === undefined || value === '') return {}
  if (!isObject(value)) return invalid('Invalid object', { code: 'parameter_invalid_empty', param })
  const entries = Object.entries(value)
  if (entries.length > 50) return invalid('Metadata can have at most 50 keys', { param })
  const metadata: Record<string, string> = {}
  for (const [key, item] of entries) {
    if (typeof item !== 'string') return invalid('Invalid string', { param: `${param}[${key}]` })
    if (key.length > 40) return invalid('Metadata keys can be at most 40 characters', { param })
    if (item.length > 500) return invalid('Metadata values can be at most 500 characters', { param })
    metadata[key] = item
  }
  return metadata
}

const isAnswer = (value: unknown): value is Answer =>
  typeof value === 'object' && value !== null && 'status' in value && 'body' in value

/** An answer instead of the real one; a string body is sent as is (text), anything else as JSON. */
export type StripeFakeFault = ScriptedFault

export type StripeFakeBehaviour = Behaviour<StripeFakeFault>

export type StripeFakeMatch = RequestMatch

/**
 * A stand-in for Stripe's API (https://docs.stripe.com/api) on 127.0.0.1, what sponsor-ad checkout calls,
 * with Stripe's paths, form-encoded bodies and JSON answers, so the official `stripe` SDK takes them:
 *
 * - `POST /v1/checkout/sessions`: `mode`, `line_items[n][price|quantity]` (each price must exist: 400
 *   `resource_missing`; a subscription needs a recurring one), `success_url` / `cancel_url` (URLs),
 *   `customer_email`, `client_reference_id`, `metadata`, `subscription_data[metadata]` (subscription mode
 *   only). Metadata: at most 50 keys of at most 40 characters, string values of at most 500. An unknown
 *   parameter is 400 `parameter_unknown`. Answers the `checkout.session` (status `open`).
 * - `GET /v1/checkout/sessions/{id}`.
 * - `GET /v1/subscriptions/{id}`; `DELETE /v1/subscriptions/{id}` cancels at once. A cancelled subscription's
 *   cancel is 404 `resource_missing` "No such subscription", as Stripe answers it.
 *
 * Every request needs `Authorization: Bearer <apiKey>`: none is 401 "You did not provide an API key",
 * another key 401 `api_key_invalid` with the key masked. Errors are `{error:{type, code?, message, param?}}`.
 * Seed prices with `addPrice` and subscriptions with `addSubscription`. `fail(match, behaviour, times)`
 * answers matching requests with a status (502–504 as an HTML proxy page unless a body is given) or holds
 * them open until `release()` / `close()`; no timers.
 */
export async function startStripeFake({ apiKey = DEFAULT_STRIPE_API_KEY }: StripeFakeOptions = {}) {
  const prices = new Map<string, StripeFakePrice>()
  const checkouts: StripeFakeCheckout[] = []
  const subscriptions = new Map<string, StripeFakeSubscription>()
  const now = () => Math.floor(Date.now() / 1000)

  function addPrice(
    input: {
      id?: string
      interval?: 'day' | 'week' | 'month' | 'year' | null
      unitAmount?: number
      currency?: string
    } = {},
  ): StripeFakePrice {
    const interval = input.interval === undefined ? 'month' : input.interval
    const price: StripeFakePrice = {
      id: input.id ?? randomId('price_'),
      object: 'price',
      active: true,
      currency: input.currency ?? 'usd',
      unit_amount: input.unitAmount ?? 10_000,
      type: interval ? 'recurring' : 'one_time',
      recurring: interval ? { interval, interval_count: 1 } : null,
      product: randomId('prod_', 14),
      created: now(),
      livemode: false,
      metadata: {},
    }
    prices.set(price.id, price)
    return price
  }

  function addSubscription(
    input: { id?: string; status?: StripeFakeSubscription['status']; metadata?: Record<string, string> } = {},
  ): StripeFakeSubscription {
    const status = input.status ?? 'active'
    const subscription: StripeFakeSubscription = {
      id: input.id ?? randomId('sub_'),
      status,
      metadata: input.metadata ?? {},
      created: now(),
      canceledAt: status === 'canceled' ? now() : null,
    }
    subscriptions.set(subscription.id, subscription)
    return subscription
  }

  const subscriptionObject = (subscription: StripeFakeSubscription) => ({
    id: subscription.id,
    object: 'subscription',
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: subscription.canceledAt,
    created: subscription.created,
    currency: 'usd',
    customer: 'cus_fake',
    ended_at: subscription.canceledAt,
    items: {
      object: 'list',
      data: [],
      has_more: false,
      url: `/v1/subscription_items?subscription=${subscription.id}`,
    },
    livemode: false,
    metadata: subscription.metadata,
    start_date: subscription.created,
    status: subscription.status,
  })

  function createSession(params: FormObject): Answer {
    for (const key of Object.keys(params)) {
      if (!CHECKOUT_PARAMS.has(key)) {
        return invalid(`Received unknown parameter: ${key}`, { code: 'parameter_unknown', param: key })
      }
    }
    const mode = text(params.mode)
    if (!mode) return invalid('Missing required param: mode.', { code: 'parameter_missing', param: 'mode' })
    if (!['payment', 'setup', 'subscription'].includes(mode)) {
      return invalid(`Invalid mode: must be one of payment, setup, or subscription`, { param: 'mode' })
    }
    const rawItems = params.line_items
    if (mode !== 'setup' && (!Array.isArray(rawItems) || rawItems.length === 0)) {
      return invalid('Missing required param: line_items.', {
        code: 'parameter_missing',
        param: 'line_items',
      })
    }
    const lineItems: { price: string; quantity: number }[] = []
    for (const [index, item] of (Array.isArray(rawItems) ? rawItems : []).entries()) {
      const param = `line_items[${index}][price]`
      const priceId = isObject(item) ? text(item.price) : null
      if (!priceId) return invalid('Missing required param: price.', { code: 'parameter_missing', param })
      const price = prices.get(priceId)
      if (!price) return noSuch('price', priceId, param)
      const quantity = Number(isObject(item) ? (text(item.quantity) ?? '1') : '1')
      if (!Number.isInteger(quantity) || quantity < 1) {
        return invalid('Invalid integer', { param: `line_items[${index}][quantity]` })
      }
      lineItems.push({ price: priceId, quantity })
    }
    if (mode === 'subscription' && !lineItems.some((item) => prices.get(item.price)?.type === 'recurring')) {
      return invalid(
        'You must provide at least one recurring price in `subscription` mode when using prices.',
        {
          param: 'line_items',
        },
      )
    }
    for (const param of ['success_url', 'cancel_url'] as const) {
      const value = params[param]
      if (value !== undefined && (typeof value !== 'string' || !URL.canParse(value))) {
        return invalid('Not a valid URL', { code: 'url_invalid', param })
      }
    }
    const customerEmail = text(params.customer_email)
    if (customerEmail !== null && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(customerEmail)) {
      return invalid(`Invalid email address: ${customerEmail}`, {
        code: 'email_invalid',
        param: 'customer_email',
      })
    }
    const metadata = metadataOf(params.metadata, 'metadata')
    if (isAnswer(metadata)) return metadata
    const subscriptionData = params.subscription_data
    if (subscriptionData !== undefined && mode !== 'subscription') {
      return invalid('You can only pass in subscription_data in `subscription` mode.', {
        param: 'subscription_data',
      })
    }
    if (subscriptionData !== undefined && !isObject(subscriptionData)) {
      return invalid('Invalid object', { param: 'subscription_data' })
    }
    for (const key of Object.keys(subscriptionData ?? {})) {
      if (!SUBSCRIPTION_DATA_PARAMS.has(key)) {
        const param = `subscription_data[${key}]`
        return invalid(`Received unknown parameter: ${param}`, { code: 'parameter_unknown', param })
      }
    }
    const subscriptionMetadata = metadataOf(subscriptionData?.metadata, 'subscription_data[metadata]')
    if (isAnswer(subscriptionMetadata)) return subscriptionMetadata

    const id = randomId(`cs_test_a1`, 48)
    const url = `https://checkout.stripe.com/c/pay/${id}#${randomBytes(24).toString('base64url')}`
    const created = now()
    const currency = prices.get(lineItems[0]?.price ?? '')?.currency ?? 'usd'
    const amount = lineItems.reduce(
      (sum, item) => sum + (prices.get(item.price)?.unit_amount ?? 0) * item.quantity,
      0,
    )
    const session = {
      id,
      object: 'checkout.session',
      after_expiration: null,
      allow_promotion_codes: null,
      amount_subtotal: amount,
      amount_total: amount,
      automatic_tax: { enabled: false, liability: null, status: null },
      billing_address_collection: null,
      cancel_url: text(params.cancel_url),
      client_reference_id: text(params.client_reference_id),
      client_secret: null,
      consent: null,
      consent_collection: null,
      created,
      currency,
      custom_fields: [],
      custom_text: {
        after_submit: null,
        shipping_address: null,
        submit: null,
        terms_of_service_acceptance: null,
      },
      customer: null,
      customer_creation: null,
      customer_details: null,
      customer_email: customerEmail,
      expires_at: created + 24 * 3600,
      invoice: null,
      livemode: false,
      locale: null,
      metadata,
      mode,
      payment_intent: null,
      payment_link: null,
      payment_method_collection: 'always',
      payment_method_types: ['card'],
      payment_status: 'unpaid',
      phone_number_collection: { enabled: false },
      recovered_from: null,
      setup_intent: null,
      shipping_address_collection: null,
      status: 'open',
      submit_type: null,
      subscription: null,
      success_url: text(params.success_url),
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted',
      url,
    }
    checkouts.push({
      id,
      url,
      mode,
      lineItems,
      successUrl: session.success_url,
      cancelUrl: session.cancel_url,
      customerEmail,
      clientReferenceId: session.client_reference_id,
      metadata,
      subscriptionMetadata,
      params,
      session,
    })
    return { status: 200, body: session }
  }

  function route(method: string, path: string, body: FormObject): Answer {
    if (path === '/v1/checkout/sessions' && method === 'POST') return createSession(body)
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)
    if (session && method === 'GET') {
      const id = decodeURIComponent(session[1]!)
      const found = checkouts.find((checkout) => checkout.id === id)
      return found ? { status: 200, body: found.session } : noSuch('checkout.session', id)
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
    if (subscriptionPath && (method === 'GET' || method === 'DELETE')) {
      const id = decodeURIComponent(subscriptionPath[1]!)
      const subscription = subscriptions.get(id)
      if (!subscription || (method === 'DELETE' && subscription.status === 'canceled')) {
        return noSuch('subscription', id)
      }
      if (method === 'DELETE') {
        subscription.status = 'canceled'
        subscription.canceledAt = now()
      }
      return { status: 200, body: subscriptionObject(subscription) }
    }
    return invalid(`Unrecognized request URL (${method}: ${path}).`)
  }

  function respond(req: IncomingMessage, { method, path, body }: StripeFakeRequest): Answer {
    const authorization = req.headers.authorization
    if (!authorization?.startsWith('Bearer ') || authorization.length === 'Bearer '.length) {
      return stripeError(
        401,
        'invalid_request_error',
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      )
    }
    const key = authorization.slice('Bearer '.length)
    if (key !== apiKey) return invalidKey(key)
    if (method === 'POST' && !req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return invalid('Invalid request: POST bodies must be application/x-www-form-urlencoded')
    }
    return route(method, path, body)
  }

  const fake = await startScriptedFake<StripeFakeBehaviour, StripeFakeMatch, StripeFakeRequest>({
    faultBody,
    log(req, text) {
      const header = (name: string) => {
        const value = req.headers[name]
        return Array.isArray(value) ? value[0] : value
      }
      return {
        body: decodeForm(text),
        authorization: header('authorization'),
        idempotencyKey: header('idempotency-key'),
        stripeVersion: header('stripe-version'),
      }
    },
    respond,
    types: { text: 'text/html; charset=utf-8', json: 'application/json' },
    headers: () => ({ 'request-id': randomId('req_', 14) }),
  })

  return Object.assign(fake.controls, {
    /** The server's address, as STRIPE_API_URL takes it. */
    url: fake.url,
    apiKey,
    /** Every request, in order. */
    requests: fake.requests,
    /** Every checkout session created, in order. */
    checkouts,
    prices,
    subscriptions,
    addPrice,
    addSubscription,
  })
}

export type StripeFake = Awaited<ReturnType<typeof startStripeFake>>
