// The node's HTTP and JSON-RPC envelope behaviour (fact sheet §1, §2):
// 404/403/405/415 bodies, parse and version errors, method-name handling,
// notifications, params forms, escaping, gzip and path cleaning.

import { describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { http, post, rpc, serviceError, simulator } from './helpers.js';

const STILL = { checkFrequencyMs: 3_600_000 };
const JSON_CT = 'application/json; charset=utf-8';

describe('routing', () => {
  it('answers unknown paths, trailing slashes and disabled APIs with the mux 404', async () => {
    const sim = await simulator({ ...STILL, admin: false });
    for (const path of [
      '/',
      '/ext/health/',
      '/ext/info/',
      '/ext/admin',
      '/ext/bc/C/ws',
      '/ext/bc/X/rpc',
      '/ext/bc/P/',
      '/ext/index/X/block/',
      '/sim-not',
    ]) {
      const r = await http(`${sim.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.body, path).toBe('404 page not found\n');
      expect(r.headers['content-type'], path).toBe('text/plain; charset=utf-8');
      expect(r.headers['node-id'], path).toBe(defined(sim.nodes[0], 'node-0').nodeId);
    }
  });

  it('redirects an unclean path like gorilla/mux does', async () => {
    const sim = await simulator(STILL);
    const r = await http(`${sim.url}//ext/./health?tag=x`);
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe('/ext/health?tag=x');
  });

  it('matches the percent-decoded path', async () => {
    const sim = await simulator(STILL);
    expect((await http(`${sim.url}/ext/%68ealth/liveness`)).body).toBe('{"checks":{},"healthy":true}\n');
  });
});

describe('allowed hosts', () => {
  it('rejects host names not allowed with 403 and accepts IP literals, localhost and an empty Host', async () => {
    const sim = await simulator(STILL);
    const withHost = (host: string) => http(`${sim.url}/ext/health/liveness`, { headers: { host } });
    const denied = await withHost('avalanchego:9650');
    expect(denied.status).toBe(403);
    expect(denied.body).toBe('invalid host specified\n');
    expect(denied.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(denied.headers['node-id']).toBe(defined(sim.nodes[0], 'node-0').nodeId);
    expect((await withHost('LOCALHOST:9650')).status).toBe(200);
    expect((await withHost('localhost')).status).toBe(200);
    expect((await withHost('10.1.2.3:9650')).status).toBe(200);
    expect((await withHost('[::1]:9650')).status).toBe(200);
    expect((await withHost('example.com')).status).toBe(403);
  });

  it('takes a list of names, or * for any', async () => {
    const listed = await simulator({ ...STILL, allowedHosts: ['avalanchego'] });
    expect((await http(`${listed.url}/ext/health/liveness`, { headers: { host: 'avalanchego:9650' } })).status).toBe(200);
    expect((await http(`${listed.url}/ext/health/liveness`, { headers: { host: 'localhost' } })).status).toBe(403);
    const any = await simulator({ ...STILL, allowedHosts: '*' });
    expect((await http(`${any.url}/ext/health/liveness`, { headers: { host: 'whatever.example' } })).status).toBe(200);
  });
});

describe('JSON-RPC envelope', () => {
  it('requires POST (405) and a registered Content-Type (415), in that order', async () => {
    const sim = await simulator(STILL);
    const url = `${sim.url}/ext/admin`;
    const get = await http(url);
    expect([get.status, get.body, get.headers['content-type']]).toEqual([
      405,
      'rpc: POST method required, received GET',
      'text/plain; charset=utf-8',
    ]);
    expect((await http(url, { method: 'DELETE' })).body).toBe('rpc: POST method required, received DELETE');
    const none = await post(url, '{}', null);
    expect([none.status, none.body]).toEqual([415, 'rpc: unrecognized Content-Type: ']);
    const text = await post(url, '{}', 'text/plain; charset=utf-8');
    expect([text.status, text.body]).toEqual([415, 'rpc: unrecognized Content-Type: text/plain']);
    // Matching is case-insensitive and ignores parameters.
    const upper = await post(url, '{"jsonrpc":"2.0","id":1,"method":"admin.lockProfile"}', 'Application/JSON;charset=UTF-8');
    expect(upper.body).toBe('{"jsonrpc":"2.0","result":{},"id":1}\n');
  });

  it('reports a parse error with code -32700, the Go decoder message, zero data and id null', async () => {
    const sim = await simulator(STILL);
    const url = `${sim.url}/ext/health`;
    const parse = (msg: string) =>
      `{"jsonrpc":"2.0","error":{"code":-32700,"message":${JSON.stringify(msg)},"data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n`;
    const cases: Array<[string, string]> = [
      ['', 'EOF'],
      ['   ', 'EOF'],
      ['{"jsonrpc":"2.0",', 'unexpected EOF'],
      ['{"jsonrpc":"2.0","id":1', 'unexpected EOF'],
      ['hello', "invalid character 'h' looking for beginning of value"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
      ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
      ['[1 2]', "invalid character '2' after array element"],
      ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
      ['{"a":-x}', "invalid character 'x' in numeric literal"],
      ['{"a":"\u0001"}', "invalid character '\\x01' in string literal"],
      ['[1,2]', 'json: cannot unmarshal array into Go value of type json2.serverRequest'],
      ['"x"', 'json: cannot unmarshal string into Go value of type json2.serverRequest'],
    ];
    for (const [body, msg] of cases) {
      const r = await post(url, body);
      expect(r.status, body).toBe(200);
      expect(r.headers['content-type'], body).toBe(JSON_CT);
      expect(r.body, body).toBe(parse(msg));
    }
    // A type error keeps what was decoded, including the id.
    const typed = await post(url, '{"jsonrpc":2,"method":"health.health","id":4}');
    expect(typed.body).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal number into Go struct field serverRequest.jsonrpc of type string","data":{"jsonrpc":"","method":"health.health","params":null,"id":4}},"id":4}\n',
    );
  });

  it('rejects another jsonrpc version with -32600 and echoes the request as data', async () => {
    const sim = await simulator(STILL);
    const r = await post(`${sim.url}/ext/health`, '{"jsonrpc": "1.0", "method": "health.health", "params": {"tags": [ "a<b" ]}, "id": "x"}');
    expect(r.body).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"1.0","method":"health.health","params":{"tags":["a\\u003cb"]},"id":"x"}},"id":"x"}\n',
    );
  });

  it('handles method names as avalanchego codec and gorilla service map do', async () => {
    const sim = await simulator(STILL);
    const url = `${sim.url}/ext/health`;
    const err = async (method: string) => (await rpc(url, method)).body;
    expect(await err('health.Health')).toBe(serviceError('method must start with a non-uppercase letter'));
    expect(await err('health.foo')).toBe(serviceError('rpc: can\'t find method "health.Foo"'));
    expect(await err('index.getIndex')).toBe(serviceError('rpc: can\'t find service "index.GetIndex"'));
    expect(await err('health')).toBe(serviceError('rpc: service/method request ill-formed: "health"'));
    expect(await err('a.b.c')).toBe(serviceError('rpc: service/method request ill-formed: "a.B.c"'));
    expect(await err('')).toBe(serviceError('rpc: service/method request ill-formed: ""'));
    // Unknown-method errors carry no nosniff header; a served call does.
    expect((await rpc(url, 'health.foo')).headers['x-content-type-options']).toBeUndefined();
    expect((await rpc(url, 'health.liveness')).headers['x-content-type-options']).toBe('nosniff');
  });

  it('writes nothing for a notification (no id or id null), but answers parse errors', async () => {
    const sim = await simulator(STILL);
    for (const body of [
      '{"jsonrpc":"2.0","method":"health.health"}',
      '{"jsonrpc":"2.0","method":"health.health","id":null}',
      '{"jsonrpc":"2.0","method":"health.nope"}',
      '{"jsonrpc":"1.0","method":"health.health"}',
      'null',
    ]) {
      const r = await post(`${sim.url}/ext/health`, body);
      expect([r.status, r.body], body).toEqual([200, '']);
    }
    expect((await post(`${sim.url}/ext/health`, '{')).body).toContain('"code":-32700');
  });

  it('echoes any id verbatim (compacted) and ignores what follows the request', async () => {
    const sim = await simulator(STILL);
    const call = (body: string) => post(`${sim.url}/ext/health`, body);
    expect((await call('{"jsonrpc":"2.0","method":"health.liveness","id":"abc"}')).body).toBe(
      '{"jsonrpc":"2.0","result":{"checks":{},"healthy":true},"id":"abc"}\n',
    );
    expect((await call('{"jsonrpc":"2.0","method":"health.liveness","id":[ 1, {"k" : 2} ]} trailing')).body).toBe(
      '{"jsonrpc":"2.0","result":{"checks":{},"healthy":true},"id":[1,{"k":2}]}\n',
    );
    expect((await call('{"jsonrpc":"2.0","method":"health.liveness","id":1.50}')).body).toBe(
      '{"jsonrpc":"2.0","result":{"checks":{},"healthy":true},"id":1.50}\n',
    );
    // Go matches member names case-insensitively.
    expect((await call('{"JSONRPC":"2.0","Method":"health.liveness","ID":2}')).body).toBe(
      '{"jsonrpc":"2.0","result":{"checks":{},"healthy":true},"id":2}\n',
    );
  });

  it('rejects params that do not fit the args struct with the generic invalid-argument error', async () => {
    const sim = await simulator(STILL);
    const invalid = serviceError(
      "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls",
    );
    for (const params of ['"x"', '5', '{"tags":"C"}', '{"tags":[1]}', '[5]']) {
      const r = await post(`${sim.url}/ext/health`, `{"jsonrpc":"2.0","id":1,"method":"health.health","params":${params}}`);
      expect(r.body, params).toBe(invalid);
      expect(r.headers['x-content-type-options'], params).toBeUndefined();
    }
    // Absent, null, [] and [null] params leave the args at their zero values.
    for (const params of ['null', '[]', '[null]', '{"unknown":true}']) {
      const r = await post(`${sim.url}/ext/health`, `{"jsonrpc":"2.0","id":1,"method":"health.liveness","params":${params}}`);
      expect(r.body, params).toBe('{"jsonrpc":"2.0","result":{"checks":{},"healthy":true},"id":1}\n');
    }
  });
});

describe('CORS (rs/cors with the node defaults)', () => {
  it('sends Vary: Origin on every answer, and the allow headers when there is an Origin', async () => {
    const sim = await simulator(STILL);
    for (const [path, status] of [
      ['/ext/health', 200],
      ['/nope', 404],
    ] as const) {
      const r = await http(`${sim.url}${path}`);
      expect([r.status, r.headers.vary, r.headers['access-control-allow-origin']], path).toEqual([status, 'Origin', undefined]);
    }
    const denied = await http(`${sim.url}/ext/health`, { headers: { host: 'evil.example' } });
    expect([denied.status, denied.headers.vary]).toEqual([403, 'Origin']);
    const cross = await http(`${sim.url}/ext/health/liveness`, { headers: { origin: 'https://grafana.example' } });
    expect(cross.headers['access-control-allow-origin']).toBe('*');
    expect(cross.headers['access-control-allow-credentials']).toBe('true');
    // No gzip in v1.14.2, even when asked.
    const zipped = await http(`${sim.url}/ext/health`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBeUndefined();
  });

  it('answers a preflight itself with 200 and no body, before the host filter', async () => {
    const sim = await simulator(STILL);
    const r = await http(`${sim.url}/ext/index/C/block`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://x.example',
        'access-control-request-method': 'post',
        'access-control-request-headers': 'content-type',
        host: 'evil.example',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    expect(r.headers['access-control-allow-methods']).toBe('POST');
    expect(r.headers['access-control-allow-headers']).toBe('Content-Type');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    // A plain OPTIONS is an ordinary request: the JSON-RPC server refuses it.
    const plain = await http(`${sim.url}/ext/index/C/block`, { method: 'OPTIONS' });
    expect([plain.status, plain.body]).toEqual([405, 'rpc: POST method required, received OPTIONS']);
  });
});
