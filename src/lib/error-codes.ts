/**
 * Every `code` an error answer of either service can carry, with its status and what it means: listed
 * once here, documented in docs/errors.md from this list (a test keeps the two in step), and the only codes
 * an `HttpError` accepts. A client branches on `code`; the message is for people and may change.
 */
export const ERROR_CODES = {
  // Shared by every route.
  VALIDATION_ERROR: [400, 'A field of params, query or body is invalid; `details` names each one.'],
  INVALID_JSON: [400, 'The body is not valid JSON (or is empty where a body is required).'],
  JSON_TOO_DEEP: [400, 'The JSON body nests arrays and objects more than 64 levels deep.'],
  BAD_REQUEST: [
    400,
    'The request cannot be read (bad URL encoding, a bad header, a malformed request line).',
  ],
  UNAUTHORIZED: [401, 'No valid session, access token or API key.'],
  FORBIDDEN: [403, 'The caller is known but may not do this.'],
  CROSS_ORIGIN: [
    403,
    'A directory write carrying the session cookie came from an origin that is not the app’s.',
  ],
  NOT_FOUND: [404, 'No route answers this method and path.'],
  METHOD_NOT_ALLOWED: [405, 'The path exists but not with this method; `Allow` lists the methods it has.'],
  REQUEST_TIMEOUT: [408, 'The request did not arrive completely in time.'],
  PAYLOAD_TOO_LARGE: [413, 'The body is larger than the service accepts.'],
  URI_TOO_LONG: [414, 'The URL, or one of its path segments, is too long.'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'A body in another format than JSON.'],
  RATE_LIMITED: [429, 'Too many requests; `Retry-After` says when to try again.'],
  HEADERS_TOO_LARGE: [431, 'The request headers are too large.'],
  CONFLICT: [409, 'The change conflicts with the resource’s current state.'],
  INTERNAL_ERROR: [500, 'Something failed on the server; the request id finds it in the logs.'],
  SERVICE_UNAVAILABLE: [503, 'The instance is shutting down or not ready.'],
  DATABASE_UNAVAILABLE: [
    503,
    'The database cannot be reached or did not answer in time; `Retry-After` says when to try again.',
  ],

  // Platform: accounts, tokens and API keys.
  INVALID_CREDENTIALS: [401, 'Email or password is wrong.'],
  INVALID_TOKEN: [401, 'The access token is invalid or expired.'],
  INVALID_REFRESH_TOKEN: [401, 'The refresh token is unknown, already used or revoked.'],
  REFRESH_TOKEN_EXPIRED: [401, 'The refresh token has expired: sign in again.'],
  REFRESH_TOKEN_REUSED: [401, 'A used refresh token came back: its whole login is signed out.'],
  INVALID_API_KEY: [401, 'The API key is invalid, expired or revoked.'],
  ACCOUNT_GONE: [401, 'The account the token or key belonged to no longer exists.'],
  API_KEY_NOT_ALLOWED: [
    403,
    'API keys cannot manage API keys, passwords, plugins, notifications or deployments: use an access token.',
  ],
  WRONG_PASSWORD: [400, 'The current password is wrong.'],
  EMAIL_TAKEN: [409, 'An account with this email exists.'],
  API_KEY_LIMIT: [400, 'The account has the most API keys it may hold.'],
  API_KEY_NOT_FOUND: [404, 'No API key of yours has this id.'],

  // Platform: works and the activity log.
  WORK_NOT_FOUND: [404, 'No work you may see has this id.'],
  WORK_EDIT_FORBIDDEN: [403, 'Viewers may not change the work.'],
  WORK_OWNER_REQUIRED: [403, 'Only the work’s owner may do this.'],
  SLUG_TAKEN: [409, 'You already have a work with this slug.'],
  USER_NOT_FOUND: [404, 'No account (platform) or user (directory) has this email or id.'],
  ALREADY_OWNER: [400, 'The owner cannot be added as a member.'],
  ALREADY_MEMBER: [409, 'The account is already a member of the work.'],
  MEMBER_NOT_FOUND: [404, 'The account is not a member of the work.'],
  ACTIVITY_NOT_FOUND: [404, 'No activity entry of yours has this id.'],

  // Platform: plugins and generation.
  PLUGIN_NOT_FOUND: [404, 'No plugin has this id.'],
  PLUGIN_NOT_ENABLED: [
    400,
    'The plugin is not enabled for the account (for a work: for its owner’s account); enable it first.',
  ],
  WORK_PLUGIN_NOT_ENABLED: [400, 'The plugin is not enabled for the work; enable it for the work first.'],
  CAPABILITY_NOT_OFFERED: [400, 'The plugin does not offer the capability named.'],
  PLUGIN_NOT_CONFIGURED: [
    400,
    'A required setting of the plugin (its API key, token) has no value at the work, account or environment level.',
  ],
  NOT_AN_AI_PROVIDER: [400, 'Only AI provider plugins have models.'],
  PROVIDER_CREDENTIALS_REJECTED: [
    400,
    'The provider refused the plugin’s credentials; its reason is in the message.',
  ],
  PROVIDER_CREDITS_EXHAUSTED: [
    400,
    'The provider refused for lack of credits or quota; its reason is in the message.',
  ],
  PROVIDER_ERROR: [502, 'The provider failed or answered something unusable; its reason is in the message.'],
  PROVIDER_ADDRESS_BLOCKED: [
    400,
    'The provider’s base URL points at a private address this instance does not reach (`AI_PROVIDER_ALLOWED_HOSTS`).',
  ],
  PROVIDER_TIMEOUT: [504, 'The provider did not answer in time.'],
  NO_AI_PROVIDER: [400, 'No AI provider plugin is active for the work.'],
  GENERATION_RUNNING: [409, 'A generation is already running for the work.'],
  GENERATION_NOT_RUNNING: [409, 'No generation is running for the work: there is nothing to cancel.'],

  // Platform: outbound webhooks.
  WEBHOOK_NOT_FOUND: [404, 'No webhook subscription of yours has this id.'],
  DELIVERY_NOT_FOUND: [404, 'No delivery of yours has this id.'],
  WEBHOOK_URL_REFUSED: [
    400,
    'The URL is not one a subscription may have: not HTTPS in production, user:password in it, or a host that is (or resolves to) a private or internal address.',
  ],
  WEBHOOK_LIMIT: [400, 'The account already has 25 active webhook subscriptions.'],
  WEBHOOK_RESUME_UNSUPPORTED: [400, 'A paused subscription cannot be made active again: create a new one.'],
  WEBHOOK_FAILED: [400, 'A failed subscription cannot be changed: create a new one.'],
  WEBHOOK_NOT_ACTIVE: [400, 'The subscription is paused or failed (or deleted): it receives no deliveries.'],
  ENCRYPTION_KEY_MISSING: [
    400,
    'PLATFORM_ENCRYPTION_KEY (platform) or DIRECTORY_ENCRYPTION_KEY (directory) is not set on this production instance, so it cannot store secrets (webhook signing secrets, secret plugin settings, the CRM API key).',
  ],

  // Platform: deployment.
  DEPLOY_PROVIDER_NOT_FOUND: [404, 'No deployment provider has this id.'],
  DEPLOY_NOT_CONFIGURED: [
    400,
    `The work's deployment provider has no token: its owner must enable the provider's plugin with one.`,
  ],
  DEPLOY_TOKEN_INVALID: [400, `The deployment provider rejected the token (for a shared work, the owner's).`],
  DEPLOY_PROVIDER_UNAVAILABLE: [
    502,
    `The deployment provider could not be asked: no answer, an error, or an answer that is not its API's.`,
  ],
  GIT_HOST_NOT_CONFIGURED: [
    400,
    'The work has no GitHub token: its owner must enable the github plugin with one.',
  ],
  GIT_TOKEN_REJECTED: [
    400,
    'GitHub rejected the token (401): reconnect GitHub with a token that has the repo and workflow scopes.',
  ],
  DEPLOY_STEP_FAILED: [
    502,
    `A step of the deploy pipeline failed; the message names the step and GitHub's answer (400 when GitHub refused the request, 502 when it failed or did not answer).`,
  ],

  // Platform: notifications.
  NOTIFICATION_NOT_FOUND: [
    404,
    'No notification of yours has this id (directory: no admin notification has it).',
  ],
  NOTIFICATION_PERSISTENT: [400, 'A persistent notification (a banner) cannot be dismissed.'],

  // Directory: accounts, users, roles, clients and categories.
  ACCOUNT_INACTIVE: [403, 'The account is not active and cannot sign in.'],
  ACCOUNT_SUSPENDED: [
    403,
    'The user is suspended (a moderation action, or an admin set the client’s status): no sign-in, no reports.',
  ],
  ACCOUNT_BANNED: [403, 'The user is banned for good by a moderation action: no sign-in, no reports.'],
  USERNAME_TAKEN: [409, 'Another user has this username.'],
  SELF_DELETION: [400, 'An admin cannot delete their own account.'],
  ROLE_NOT_FOUND: [404, 'No role has this id.'],
  ROLE_EXISTS: [409, 'A role with this name exists.'],
  ADMIN_ROLE_PROTECTED: [400, 'The admin role cannot be deleted, deactivated or lose admin rights.'],
  USER_ROLE_PROTECTED: [400, 'The user role, which every new account gets, cannot be deleted for good.'],
  INVALID_PERMISSIONS: [400, 'Unknown permissions were sent; `details` lists them.'],
  CLIENT_NOT_FOUND: [404, 'No client has this id.'],
  CLIENT_EXISTS: [409, 'A client with this email exists.'],
  CATEGORY_NOT_FOUND: [404, 'No category has this id.'],
  CATEGORY_ID_EXISTS: [409, 'A category with this id exists.'],
  CATEGORY_NAME_EXISTS: [409, 'A category with this name exists.'],
  UNKNOWN_CATEGORY_IDS: [400, 'The reorder names category ids that do not exist.'],
  GIT_NOT_CONFIGURED: [500, 'The answer of the Git category routes while no data repository is set.'],
  GIT_HOST_ERROR: [502, 'The Git host refused or failed; the message gives its reason.'],
  GIT_AUTH_FAILED: [502, 'The Git host refused the configured token.'],
  GIT_REPO_NOT_FOUND: [502, 'The data repository was not found on the Git host.'],
  GIT_FILE_INVALID: [502, 'The categories file in the data repository is not a readable file.'],
  GIT_FILE_CHANGED: [409, 'The categories file kept changing in the data repository; try again.'],

  // Directory: items.
  ITEM_NOT_FOUND: [404, 'No item has this id (or, on the public site, no published item has this slug).'],
  ITEM_SLUG_EXISTS: [409, 'An item with this slug exists.'],
  ITEM_ALREADY_PUBLISHED: [409, 'Approving an item that is already published.'],
  ITEM_ALREADY_REJECTED: [409, 'Rejecting an item that is already rejected.'],
  COMMENTS_CLOSED: [403, 'The site’s settings do not take comments now.'],
  SUBMISSIONS_CLOSED: [403, 'The site’s settings do not take submissions now.'],
  CATEGORY_IN_USE: [
    409,
    'Items are in the category: move them before deleting it for good (deactivating is allowed).',
  ],

  // Directory: favorites.
  FAVORITE_EXISTS: [409, 'The item is already in your favorites.'],
  FAVORITE_NOT_FOUND: [404, 'The item is not in your favorites.'],
  FEATURED_ITEM_NOT_FOUND: [404, 'No featured item has this id.'],
  FEATURED_ITEMS_UNAVAILABLE: [
    500,
    'The featured shelf could not be read (message: `Failed to fetch featured items`).',
  ],

  // Directory: collections.
  COLLECTION_NOT_FOUND: [404, 'No collection has this id.'],
  COLLECTION_SLUG_EXISTS: [409, 'A collection with this slug exists.'],
  UNKNOWN_ITEM_IDS: [400, 'The list names item ids that do not exist; `details` names each one.'],
  COLLECTIONS_UNAVAILABLE: [
    500,
    'The collections count could not be read (message: `Failed to check collections existence`).',
  ],

  // Directory: comments.
  COMMENT_NOT_FOUND: [404, 'No comment has this id.'],
  COMMENT_ALREADY_APPROVED: [409, 'Approving a comment that is already approved.'],
  COMMENT_ALREADY_REJECTED: [409, 'Rejecting a comment that is already rejected.'],

  // Directory: contact messages.
  CONTACT_MESSAGE_NOT_FOUND: [404, 'No contact message has this id.'],

  // Directory: sponsor ads and payments.
  SPONSOR_AD_NOT_FOUND: [404, 'No sponsor ad has this id (or, on a user’s read, it is another user’s).'],
  SPONSOR_AD_DUPLICATE: [
    400,
    'The user already has an ad for this item that awaits payment, is in review or is running.',
  ],
  SPONSOR_AD_INVALID_TRANSITION: [
    400,
    'The ad’s status does not allow this action (see the sponsor-ad transitions); the message names it.',
  ],
  PAYMENT_NOT_RECEIVED: [400, 'Approving an ad awaiting payment without `forceApprove: true`.'],
  PAYMENT_NOT_CONFIGURED: [
    400,
    'The payment provider’s credentials or the interval’s price id are not set on this site.',
  ],
  PAYMENT_PROVIDER_ERROR: [
    500,
    'The payment provider refused or could not be reached; the reason is logged.',
  ],

  // Directory: reports, moderation, geocoding and the location index.
  CLIENT_PROFILE_REQUIRED: [403, 'Only a user with a client profile can report content.'],
  REPORT_NOT_FOUND: [404, 'No report has this id.'],
  REPORT_DUPLICATE: [409, 'The user has already reported this content.'],
  REPORT_OWNER_NOT_FOUND: [
    400,
    'A user-level resolution (warn, suspend, ban) for content this database does not hold, or that has no owner.',
  ],
  LOCATION_DISABLED: [
    503,
    'Location features are off (`LOCATION_ENABLED`, or the site’s location settings).',
  ],
  GEOCODING_NOT_CONFIGURED: [
    503,
    'No geocoding provider has credentials (`MAPBOX_ACCESS_TOKEN`, `GOOGLE_MAPS_API_KEY`).',
  ],
  GEOCODING_FAILED: [
    503,
    'Every configured geocoding provider failed (timed out, rate limited, refused or answered garbage); try again later.',
  ],
  GEOCODE_NO_RESULT: [404, 'The geocoding providers found nothing for this address or point.'],
  IMPORT_NOT_FOUND: [404, 'No import has this id.'],
  LOCATION_INDEX_BUSY: [
    409,
    'A location index rebuild is already queued or running; its status says how far it is.',
  ],
  ITEM_HAS_NO_URL: [400, 'Checking the link of an item that has no URL.'],
  LINK_CHECK_BUSY: [409, 'A link check run is already queued or running; its status says how far it is.'],

  // Directory: tags and companies.
  TAG_NOT_FOUND: [404, 'No tag has this id.'],
  TAG_NAME_EXISTS: [409, 'A tag with this name exists, whatever its case.'],
  TAG_ID_EXISTS: [409, 'A tag with this id exists.'],
  TAG_IN_USE: [409, 'Items carry the tag: remove it from them before deleting it.'],
  COMPANY_NOT_FOUND: [404, 'No company has this id.'],
  COMPANY_NAME_EXISTS: [409, 'A company with this name exists, whatever its case.'],
  COMPANY_SLUG_EXISTS: [409, 'A company with this slug exists.'],
  COMPANY_IN_USE: [
    409,
    'Items name the company: move them to another company (or deactivate it) instead of deleting it.',
  ],

  // Directory: CRM (Twenty).
  CRM_URL_REFUSED: [
    400,
    'The CRM base URL is not one the sync may call: not http(s) (https in production), user:password or a query in it, or a private or internal address other than TWENTY_API_URL’s host.',
  ],
  CRM_NOT_CONFIGURED: [
    400,
    'No CRM API key to use: none is saved (or the base URL changes, and the saved key is never sent to another server).',
  ],
  CRM_NOT_ENABLED: [400, 'The CRM sync is off: turn it on before re-queueing records.'],
} as const satisfies Record<string, readonly [number, string]>

export type ErrorCode = keyof typeof ERROR_CODES
