import { randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Checkout, Subscription } from '@lemonsqueezy/lemonsqueezy.js'
import type { Answer, Behaviour, RequestMatch, ScriptedFault, ScriptedRequest } from './scripted.ts'
import { parseBody, startScriptedFake } from './scripted.ts'

export const DEFAULT_LEMONSQUEEZY_API_KEY = 'lmsq-fake-api-key-0123456789abcdef'

/** The origin the links in LemonSqueezy's answers point at (the real API's). */
const API = 'https://api.lemonsqueezy.com'

export interface LemonSqueezyFakeOptions {
  /** The key every request must present as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
}

/** A request as LemonSqueezy received it; `path` without the query, e.g. `/v1/checkouts`. */
export interface LemonSqueezyFakeRequest extends ScriptedRequest {
  /** The JSON body parsed, the raw text when it is not JSON, undefined when empty. */
  body: unknown
  authorization: string | undefined
  contentType: string | undefined
}

type CheckoutAttributes = Checkout['data']['attributes']
/** LemonSqueezy's checkout as it answers it: PHP's empty arrays where nothing was given. */
type CheckoutAnswer = Omit<Checkout, 'data'> & {
  data: Omit<Checkout['data'], 'attributes'> & {
    attributes: Omit<CheckoutAttributes, 'preview' | 'checkout_data'> & {
      preview: CheckoutAttributes['preview'] | false
      checkout_data: Omit<CheckoutAttributes['checkout_data'], 'billing_address'> & {
        billing_address: CheckoutAttributes['checkout_data']['billing_address'] | []
      }
    }
  }
}
type SubscriptionAttributes = Subscription['data']['attributes']

/** A created checkout, with what LemonSqueezy received. */
export interface LemonSqueezyFakeCheckout {
  id: string
  storeId: string
  variantId: string
  /** `checkout_data.email`. */
  email: string | null
  /** `checkout_data.custom`, as received. */
  custom: unknown
  /** `product_options.redirect_url`. */
  redirectUrl: string | null
  /** The request's `data.attributes`, as received. */
  attributes: Record<string, unknown>
  checkout: CheckoutAnswer
}

export interface LemonSqueezyFakeSubscription {
  id: string
  storeId: number
  variantId: number
  status: SubscriptionAttributes['status']
  cancelled: boolean
  custom: Record<string, unknown>
  createdAt: string
  renewsAt: string
  endsAt: string | null
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
}

/** A JSON:API error answer, as LemonSqueezy sends them. */
const lemonError = (status: number, detail: string, pointer?: string): Answer => ({
  status,
  body: {
    jsonapi: { version: '1.0' },
    errors: [
      {
        detail,
        ...(pointer ? { source: { pointer } } : {}),
        status: String(status),
        title: TITLES[status] ?? 'Error',
      },
    ],
  },
})

/** The default body of an injected fault, as LemonSqueezy (or the proxy in front of it) words that status. */
function faultBody(status: number): unknown {
  if (status === 502 || status === 503 || status === 504) return '<html><body>Bad Gateway</body></html>'
  if (status === 401) return lemonError(401, 'Unauthenticated.').body
  if (status === 429) return lemonError(429, 'Too Many Attempts.').body
  if (status >= 500) return lemonError(status, 'Server Error').body
  return lemonError(status, TITLES[status] ?? 'Bad Request').body
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const relationship = (type: string, id: string, name: string) => ({
  links: {
    related: `${API}/v1/${type}/${id}/${name}`,
    self: `${API}/v1/${type}/${id}/relationships/${name}`,
  },
})

/** An answer instead of the real one; a string body is sent as is (text), anything else as JSON. */
export type LemonSqueezyFakeFault = Omit<ScriptedFault, 'headers'>

export type LemonSqueezyFakeBehaviour = Behaviour<LemonSqueezyFakeFault>

export type LemonSqueezyFakeMatch = RequestMatch

/**
 * A stand-in for LemonSqueezy's API (https://docs.lemonsqueezy.com/api) on 127.0.0.1, what sponsor-ad
 * checkout calls, in JSON:API as the official `@lemonsqueezy/lemonsqueezy.js` SDK sends and reads it:
 *
 * - `POST /v1/checkouts`: `{data:{type:'checkouts', attributes, relationships:{store, variant}}}`. The store
 *   and variant must exist and belong together (422 with a `source.pointer` otherwise); `checkout_data` must
 *   be an object, its `email` an address and its `custom` an object; `product_options.redirect_url` a URL.
 *   Answers 201 with the checkout (`data.id`, `data.attributes.url`, `checkout_data.custom` as received).
 * - `GET /v1/checkouts/{id}`, `GET /v1/subscriptions/{id}`.
 * - `DELETE /v1/subscriptions/{id}`: the subscription `cancelled` (it runs to `ends_at`); a cancelled one
 *   answers the same again; an unknown one is 404.
 *
 * Every request needs `Authorization: Bearer <apiKey>`: otherwise 401 "Unauthenticated.". A POST must be
 * `application/vnd.api+json` (415 otherwise). Errors are `{jsonapi, errors:[{detail, source?, status,
 * title}]}`. Ids are numbers (as strings), checkouts' are uuids. Seed with `addStore`, `addVariant`,
 * `addSubscription`; `fail(match, behaviour, times)` answers with a status (502–504 as an HTML proxy page
 * unless a body is given) or holds requests open until `release()` / `close()`; no timers.
 */
export async function startLemonSqueezyFake({
  apiKey = DEFAULT_LEMONSQUEEZY_API_KEY,
}: LemonSqueezyFakeOptions = {}) {
  const stores = new Map<string, { id: string; slug: string }>()
  const variants = new Map<string, { id: string; storeId: string; name: string }>()
  const checkouts: LemonSqueezyFakeCheckout[] = []
  const subscriptions = new Map<string, LemonSqueezyFakeSubscription>()
  let nextId = 10_000
  const newId = () => String(nextId++)
  const now = () => new Date().toISOString()

  function addStore(input: { id?: string; slug?: string } = {}) {
    const id = input.id ?? newId()
    const store = { id, slug: input.slug ?? `store-${id}` }
    stores.set(id, store)
    return store
  }

  function addVariant(input: { storeId: string; id?: string; name?: string }) {
    if (!stores.has(input.storeId)) throw new Error(`lemonsqueezy fake: no store ${input.storeId}`)
    const variant = { id: input.id ?? newId(), storeId: input.storeId, name: input.name ?? 'Default' }
    variants.set(variant.id, variant)
    return variant
  }

  function addSubscription(
    input: {
      id?: string
      storeId?: string
      variantId?: string
      status?: LemonSqueezyFakeSubscription['status']
      custom?: Record<string, unknown>
    } = {},
  ): LemonSqueezyFakeSubscription {
    const status = input.status ?? 'active'
    const renewsAt = new Date(Date.now() + 7 * 24 * 3600_000).toISOString()
    const subscription: LemonSqueezyFakeSubscription = {
      id: input.id ?? newId(),
      storeId: Number(input.storeId ?? 1),
      variantId: Number(input.variantId ?? 1),
      status,
      cancelled: status === 'cancelled' || status === 'expired',
      custom: input.custom ?? {},
      createdAt: now(),
      renewsAt,
      endsAt: status === 'cancelled' || status === 'expired' ? renewsAt : null,
    }
    subscriptions.set(subscription.id, subscription)
    return subscription
  }

  function subscriptionAnswer(subscription: LemonSqueezyFakeSubscription): Subscription {
    const id = subscription.id
    return {
      jsonapi: { version: '1.0' },
      links: { self: `${API}/v1/subscriptions/${id}` },
      data: {
        type: 'subscriptions',
        id,
        attributes: {
          store_id: subscription.storeId,
          customer_id: 1,
          order_id: 1,
          order_item_id: 1,
          product_id: 1,
          variant_id: subscription.variantId,
          product_name: 'Sponsored listing',
          variant_name: 'Default',
          user_name: 'Ada Lovelace',
          user_email: 'ada@example.com',
          status: subscription.status,
          status_formatted:
            subscription.status[0]!.toUpperCase() + subscription.status.slice(1).replace('_', ' '),
          card_brand: 'visa',
          card_last_four: '4242',
          pause: null,
          cancelled: subscription.cancelled,
          trial_ends_at: null,
          billing_anchor: new Date(subscription.createdAt).getUTCDate(),
          first_subscription_item: {
            id: 1,
            subscription_id: Number(id),
            price_id: 1,
            quantity: 1,
            is_usage_based: false,
            created_at: subscription.createdAt,
            updated_at: subscription.createdAt,
          },
          urls: {
            update_payment_method: `https://store.lemonsqueezy.com/subscription/${id}/payment-details`,
            customer_portal: `https://store.lemonsqueezy.com/billing`,
            customer_portal_update_subscription: `https://store.lemonsqueezy.com/billing/${id}/update`,
          },
          renews_at: subscription.renewsAt,
          ends_at: subscription.endsAt,
          created_at: subscription.createdAt,
          updated_at: now(),
          test_mode: true,
        },
        relationships: Object.fromEntries(
          [
            'store',
            'customer',
            'order',
            'order-item',
            'product',
            'variant',
            'subscription-items',
            'subscription-invoices',
          ].map((name) => [name, relationship('subscriptions', id, name)]),
        ) as Subscription['data']['relationships'],
        links: { self: `${API}/v1/subscriptions/${id}` },
      },
    }
  }

  function createCheckout(body: unknown): Answer {
    const data = isRecord(body) && isRecord(body.data) ? body.data : undefined
    if (data?.type !== 'checkouts') {
      return lemonError(422, 'The data.type field must be checkouts.', '/data/type')
    }
    const attributes = isRecord(data.attributes) ? data.attributes : {}
    const relationships = isRecord(data.relationships) ? data.relationships : {}
    const idOf = (name: string) => {
      const related = relationships[name]
      const inner = isRecord(related) && isRecord(related.data) ? related.data : undefined
      return inner && inner.type === `${name}s` && typeof inner.id === 'string' ? inner.id : undefined
    }
    const storeId = idOf('store')
    if (!storeId || !stores.has(storeId)) {
      return lemonError(422, 'The selected store id is invalid.', '/data/relationships/store/data/id')
    }
    const variantId = idOf('variant')
    const variant = variantId ? variants.get(variantId) : undefined
    if (!variantId || !variant || variant.storeId !== storeId) {
      return lemonError(422, 'The selected variant id is invalid.', '/data/relationships/variant/data/id')
    }
    const checkoutData = attributes.checkout_data ?? {}
    if (!isRecord(checkoutData)) {
      return lemonError(422, 'The checkout data must be an array.', '/data/attributes/checkout_data')
    }
    const email = checkoutData.email
    if (email !== undefined && (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))) {
      return lemonError(
        422,
        'The checkout data.email must be a valid email address.',
        '/data/attributes/checkout_data/email',
      )
    }
    const custom = checkoutData.custom
    if (custom !== undefined && !isRecord(custom)) {
      return lemonError(
        422,
        'The checkout data.custom must be an array.',
        '/data/attributes/checkout_data/custom',
      )
    }
    const productOptions = attributes.product_options ?? {}
    if (!isRecord(productOptions)) {
      return lemonError(422, 'The product options must be an array.', '/data/attributes/product_options')
    }
    const redirectUrl = productOptions.redirect_url
    if (redirectUrl !== undefined && (typeof redirectUrl !== 'string' || !URL.canParse(redirectUrl))) {
      return lemonError(
        422,
        'The product options.redirect url must be a valid URL.',
        '/data/attributes/product_options/redirect_url',
      )
    }

    const id = randomUUID()
    const store = stores.get(storeId)!
    const created = now()
    const checkout: CheckoutAnswer = {
      jsonapi: { version: '1.0' },
      links: { self: `${API}/v1/checkouts/${id}` },
      data: {
        type: 'checkouts',
        id,
        attributes: {
          store_id: Number(storeId),
          variant_id: Number(variantId),
          custom_price: typeof attributes.custom_price === 'number' ? attributes.custom_price : null,
          product_options: {
            name: '',
            description: '',
            media: [],
            redirect_url: typeof redirectUrl === 'string' ? redirectUrl : '',
            receipt_button_text: '',
            receipt_link_url: '',
            receipt_thank_you_note: '',
            enabled_variants: [],
            confirmation_title: '',
            confirmation_message: '',
            confirmation_button_text: '',
          },
          checkout_options: {
            embed: false,
            media: true,
            logo: true,
            desc: true,
            discount: true,
            skip_trial: false,
            quantity: 1,
            subscription_preview: true,
            background_color: '',
            headings_color: '',
            primary_text_color: '',
            secondary_text_color: '',
            links_color: '',
            borders_color: '',
            checkbox_color: '',
            active_state_color: '',
            button_color: '',
            button_text_color: '',
            terms_privacy_color: '',
            dark: false,
          },
          checkout_data: {
            email: typeof email === 'string' ? email : '',
            name: typeof checkoutData.name === 'string' ? checkoutData.name : '',
            billing_address: [],
            tax_number: '',
            discount_code: '',
            custom: custom ?? [],
            variant_quantities: [],
          },
          preview: false,
          expires_at: typeof attributes.expires_at === 'string' ? attributes.expires_at : null,
          created_at: created,
          updated_at: created,
          test_mode: attributes.test_mode === true,
          url: `https://${store.slug}.lemonsqueezy.com/checkout/custom/${id}?signature=${randomBytes(32).toString('hex')}`,
        },
        relationships: {
          store: relationship('checkouts', id, 'store'),
          variant: relationship('checkouts', id, 'variant'),
        },
        links: { self: `${API}/v1/checkouts/${id}` },
      },
    }
    checkouts.push({
      id,
      storeId,
      variantId,
      email: typeof email === 'string' ? email : null,
      custom,
      redirectUrl: typeof redirectUrl === 'string' ? redirectUrl : null,
      attributes,
      checkout,
    })
    return { status: 201, body: checkout }
  }

  function route(method: string, path: string, body: unknown): Answer {
    if (path === '/v1/checkouts' && method === 'POST') return createCheckout(body)
    const checkoutPath = /^\/v1\/checkouts\/([^/]+)$/.exec(path)
    if (checkoutPath && method === 'GET') {
      const found = checkouts.find((checkout) => checkout.id === decodeURIComponent(checkoutPath[1]!))
      return found ? { status: 200, body: found.checkout } : lemonError(404, 'Not Found')
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
    if (subscriptionPath && (method === 'GET' || method === 'DELETE')) {
      const subscription = subscriptions.get(decodeURIComponent(subscriptionPath[1]!))
      if (!subscription) return lemonError(404, 'Not Found')
      if (method === 'DELETE' && !subscription.cancelled) {
        subscription.cancelled = true
        subscription.status = 'cancelled'
        subscription.endsAt = subscription.renewsAt
      }
      return { status: 200, body: subscriptionAnswer(subscription) }
    }
    return lemonError(404, 'Not Found')
  }

  function respond(req: IncomingMessage, { method, path, body }: LemonSqueezyFakeRequest): Answer {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return lemonError(401, 'Unauthenticated.')
    if (
      (method === 'POST' || method === 'PATCH') &&
      !req.headers['content-type']?.startsWith('application/vnd.api+json')
    ) {
      return lemonError(415, 'The request must use the media type application/vnd.api+json.')
    }
    return route(method, path, body)
  }

  const fake = await startScriptedFake<
    LemonSqueezyFakeBehaviour,
    LemonSqueezyFakeMatch,
    LemonSqueezyFakeRequest
  >({
    faultBody,
    log: (req, text) => ({
      body: parseBody(text),
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
    }),
    respond,
    types: { text: 'text/html; charset=utf-8', json: 'application/vnd.api+json' },
  })

  return Object.assign(fake.controls, {
    /** The server's address, as LEMONSQUEEZY_API_URL takes it. */
    url: fake.url,
    apiKey,
    /** Every request, in order. */
    requests: fake.requests,
    /** Every checkout created, in order. */
    checkouts,
    subscriptions,
    addStore,
    addVariant,
    addSubscription,
  })
}

export type LemonSqueezyFake = Awaited<ReturnType<typeof startLemonSqueezyFake>>
