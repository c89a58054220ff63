// Response headers every answer of the exporter's own pages carries without a
// web config: the pages hold only inline CSS (no script, no frame, no form), so
// the policy allows that and nothing else. A web config's `http_server_config.headers`
// is applied after these and wins.

export const PAGE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
  ['X-Content-Type-Options', 'nosniff'],
];
