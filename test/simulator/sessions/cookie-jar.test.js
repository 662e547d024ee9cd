import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseCookies } from '../../../lib/values/option-values.js'
import { compileIdentities } from '../../../simulator/sessions/identity.js'
import { cookieHeader, cookieValue, defaultPath, pathMatches, seedCookies, storeCookies, MAX_COOKIES } from '../../../simulator/sessions/cookie-jar.js'

const HTTP = Object.freeze({ secure: false, host: 'app.example.com', path: '/socket.io/' })
const HTTPS = Object.freeze({ ...HTTP, secure: true })
const NOW = Date.UTC(2026, 0, 1)

test('a jar is null until a cookie is stored, and sends what it was given', () => {
  assert.equal(storeCookies(null, undefined, HTTP, NOW), null)
  assert.equal(cookieHeader(null, '/socket.io/', NOW), '')
  const jar = storeCookies(null, 'SERVERID=node2; path=/', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'SERVERID=node2')
  const two = storeCookies(jar, ['a=1', 'b="quoted value"; HttpOnly'], HTTP, NOW)
  assert.equal(cookieHeader(two, '/socket.io/', NOW), 'SERVERID=node2; a=1; b="quoted value"')
})

test('a node cookie (--node-from cookie:NAME) is read from the jar: the last one set wins, other names ignored', () => {
  assert.equal(cookieValue(storeCookies(null, ['io=abc; Path=/', 'SERVERID=n2; path=/'], HTTP, NOW), 'SERVERID'), 'n2')
  assert.equal(cookieValue(storeCookies(null, ['SERVERID=n1', 'SERVERID=n3'], HTTP, NOW), 'SERVERID'), 'n3')
  assert.equal(cookieValue(storeCookies(null, ['XSERVERID=n1'], HTTP, NOW), 'SERVERID'), null)
  assert.equal(cookieValue(storeCookies(null, undefined, HTTP, NOW), 'SERVERID'), null)
})

test('a later Set-Cookie of the same name and path replaces the earlier one; another path is another cookie', () => {
  let jar = storeCookies(null, 'SERVERID=node1; Path=/', HTTP, NOW)
  jar = storeCookies(jar, 'SERVERID=node3; Path=/', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'SERVERID=node3')
  jar = storeCookies(jar, 'SERVERID=deep; Path=/socket.io', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'SERVERID=node3; SERVERID=deep')
  assert.equal(cookieHeader(jar, '/login', NOW), 'SERVERID=node3')
  // A name that only starts like another is not the same cookie.
  jar = storeCookies(jar, 'SERVER=x; Path=/', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/login', NOW), 'SERVERID=node3; SERVER=x')
})

test('path: the default is the directory of the request path; a cookie goes only to paths under its own', () => {
  assert.equal(defaultPath('/socket.io/'), '/socket.io')
  assert.equal(defaultPath('/login'), '/')
  assert.equal(defaultPath('/'), '/')
  assert.equal(defaultPath('no-slash'), '/')
  assert.equal(pathMatches('/socket.io', '/socket.io/'), true)
  assert.equal(pathMatches('/socket.io', '/socket.iox/'), false)
  assert.equal(pathMatches('/a/', '/a/b'), true)
  assert.equal(pathMatches('/a', '/a'), true)
  assert.equal(pathMatches('/a', '/b'), false)
  const jar = storeCookies(null, ['dir=1', 'api=2; Path=/api', 'bad=3; Path=relative'], { ...HTTP, path: '/socket.io/' }, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'dir=1; bad=3')
  assert.equal(cookieHeader(jar, '/api/x', NOW), 'api=2')
})

test('Max-Age and Expires: a cookie ends at its expiry, Max-Age wins, zero or a past date deletes', () => {
  let jar = storeCookies(null, ['short=1; Max-Age=10', `dated=2; Expires=${new Date(NOW + 60_000).toUTCString()}`, 'session=3'], HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW + 9_000), 'short=1; dated=2; session=3')
  assert.equal(cookieHeader(jar, '/socket.io/', NOW + 10_000), 'dated=2; session=3')
  assert.equal(cookieHeader(jar, '/socket.io/', NOW + 61_000), 'session=3')
  assert.equal(jar?.length, 1, 'expired cookies are dropped, not kept')
  // Max-Age over Expires, whichever comes first in the header.
  jar = storeCookies(null, `both=1; Expires=${new Date(NOW - 1000).toUTCString()}; Max-Age=100`, HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW + 50_000), 'both=1')
  // Deletions.
  jar = storeCookies(null, ['gone=1', 'kept=1'], HTTP, NOW)
  jar = storeCookies(jar, 'gone=; Max-Age=0', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'kept=1')
  jar = storeCookies(jar, 'kept=; Expires=Thu, 01 Jan 1970 00:00:00 GMT', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), '')
  assert.equal(storeCookies(null, 'x=1; Max-Age=-5', HTTP, NOW), null)
  // An attribute that does not parse is ignored, not the cookie.
  jar = storeCookies(null, ['a=1; Max-Age=soon', 'b=2; Expires=someday'], HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW + 1e9), 'a=1; b=2')
})

test('Secure: stored and sent only over TLS', () => {
  assert.equal(storeCookies(null, 'tls=1; Secure', HTTP, NOW), null)
  const jar = storeCookies(null, 'tls=1; Secure; HttpOnly; SameSite=None', HTTPS, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'tls=1')
})

test('Domain: the host or a parent of it; another domain is not stored', () => {
  const jar = storeCookies(null, ['own=1; Domain=app.example.com', 'parent=2; Domain=.example.com', 'other=3; Domain=evil.com'], HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'own=1; parent=2')
  const ip = { ...HTTP, host: '127.0.0.1' }
  assert.equal(cookieHeader(storeCookies(null, ['a=1; Domain=127.0.0.1', 'b=2; Domain=0.0.1'], ip, NOW), '/socket.io/', NOW), 'a=1')
})

test('malformed Set-Cookie values are ignored; the jar is bounded', () => {
  assert.equal(storeCookies(null, ['novalue', '=anonymous', 'bad name=1', `big=${'x'.repeat(5000)}`], HTTP, NOW), null)
  let jar = null
  for (let k = 0; k < MAX_COOKIES + 5; k++) jar = storeCookies(jar, `c${k}=${k}`, HTTP, NOW)
  assert.equal(jar?.length, MAX_COOKIES)
  assert.ok(cookieHeader(jar, '/socket.io/', NOW).startsWith('c5=5; '), 'the oldest go first')
})

test('--cookie seeds session cookies for the whole origin, replaced by a later Set-Cookie of the name', () => {
  let jar = seedCookies(null, { session: 'abc', theme: 'dark' })
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'session=abc; theme=dark')
  jar = storeCookies(jar, 'session=new; Path=/', HTTP, NOW)
  assert.equal(cookieHeader(jar, '/socket.io/', NOW), 'theme=dark; session=new')
})

test('--cookie: name=value templates, rendered per client; a bad one is refused naming the flag', () => {
  assert.deepEqual(parseCookies(['session={{row.sid}}', 'theme=dark'], '--cookie'), [['session', '{{row.sid}}'], ['theme', 'dark']])
  assert.throws(() => parseCookies(['no-equals'], '--cookie'), { code: 'IOSWARM_ERR_INVALID_OPTION', message: /^--cookie must be 'name=value'/ })
  assert.throws(() => parseCookies(['a b=1'], '--cookie'), /--cookie must be 'name=value'/)
  assert.throws(() => parseCookies(['a=1; Path=/'], '--cookie'), /--cookie a's value must not contain ';'/)
  const identities = compileIdentities({ cookies: ['user=u{{i}}', 'fixed=1'], clientOffset: 10 }, { simId: 'sim-a' })
  assert.deepEqual(identities.of(2).cookies, { user: 'u12', fixed: '1' })
  assert.equal(identities.personal, true)
  assert.throws(() => compileIdentities({ cookies: ['r={{room}}'] }, { simId: 's' }), /--cookie uses \{\{room\}\}/)
})
