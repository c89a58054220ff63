// Who may ask, beyond the web config's password: the Host a request names and where a state-changing request
// comes from. A web page an operator has open can POST to the exporter (a form needs no CORS), and a name the page's
// site controls can be pointed at the exporter's address (DNS rebinding) so that the browser reads /config as that
// site's own page. The first is refused by the Fetch Metadata and Origin headers browsers send, as Go's
// net/http CrossOriginProtection does; the second by a list of the names the exporter is reached by.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Methods that change nothing: never refused as cross-origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A Host header or URL authority → its name (lower case, IPv6 without brackets) and port; undefined when it is not one. */
export function splitHost(authority: string, defaultPort: number): { name: string; port: number } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s/@]+))(?::(\d{1,5}))?$/.exec(authority);
  if (!m) return undefined;
  const name = (m[1] ?? m[2] ?? '').toLowerCase().replace(/\.$/, '');
  return { name, port: m[3] !== undefined ? Number(m[3]) : defaultPort };
}

function defaultPortOf(req: IncomingMessage): number {
  return (req.socket as Partial<TLSSocket>).encrypted ? 443 : 80;
}

/**
 * Why a request's Host is refused, or undefined when it is served. `allowed`: the names (--web.allowed-hosts) the
 * exporter is reached by; empty: every name (the default: an exporter is scraped by address, and a name it does not
 * know is no fault on its own).
 */
export function hostProblem(req: IncomingMessage, allowed: ReadonlySet<string>): string | undefined {
  if (allowed.size === 0) return undefined;
  const host = splitHost(req.headers.host ?? '', defaultPortOf(req));
  if (host && allowed.has(host.name)) return undefined;
  const shown = (req.headers.host ?? '').slice(0, 100);
  return `host ${JSON.stringify(shown)} is not one this exporter serves (--web.allowed-hosts: ${[...allowed].join(', ')})`;
}

/**
 * Why a state-changing request is refused as cross-origin, or undefined. A browser says where a request comes from
 * (Sec-Fetch-Site, else Origin); a request with neither is not from a browser page (curl, a config tool) and passes.
 */
export function crossOriginProblem(req: IncomingMessage): string | undefined {
  if (SAFE_METHODS.has(req.method ?? '')) return undefined;
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    // same-site is still another origin (another port or sub-domain of the same site).
    return site === 'same-origin' || site === 'none' ? undefined : `Sec-Fetch-Site is ${JSON.stringify(site.slice(0, 40))}`;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return `Origin ${JSON.stringify(origin.slice(0, 100))} is not an origin`;
  }
  const self = splitHost(req.headers.host ?? '', defaultPortOf(req));
  const other = splitHost(from.host, from.protocol === 'https:' ? 443 : 80);
  if (self && other && self.name === other.name && self.port === other.port) return undefined;
  return `Origin ${JSON.stringify(origin.slice(0, 100))} is not this exporter's (Host ${JSON.stringify((req.headers.host ?? '').slice(0, 100))})`;
}
