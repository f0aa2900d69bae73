const LOOPBACK_OR_ANY = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '::'])

/**
 * The address to show for a service: `http://localhost:<port>` when it listens on a loopback or on every
 * address (the origin APP_URL defaults to), else the address it listens on.
 */
export function displayUrl(host: string, port: number): string {
  if (LOOPBACK_OR_ANY.has(host) || host.startsWith('127.')) return `http://localhost:${port}`
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}
