/**
 * A HAR built from Chromium's own DevTools Protocol events, written as Chrome's devtools write
 * one (devtools-frontend models/har/Log.ts): each request with its headers, cookies, post data
 * and body, and each WebSocket as an entry of `_resourceType: "websocket"`, status 101, its
 * frames in `_webSocketMessages` (`{type, time: epoch seconds, opcode, data}`). HAR tools that
 * read the page's requests through a browser automation API (chrome-har, puppeteer-har) drop
 * WebSocket frames; these events carry them.
 */

/**
 * Starts recording a page's network traffic.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<{ har: () => Promise<object> }>}
 */
export async function recordHar (page) {
  const cdp = await page.context().newCDPSession(page)
  /** @type {Map<string, any>} */
  const byId = new Map()
  /** Wall-clock seconds minus the protocol's monotonic seconds (from the first event that has both). @type {number | null} */
  let offset = null
  const wall = (/** @type {number} */ ts) => (ts + (offset ?? 0))
  const of = (/** @type {string} */ id) => {
    if (!byId.has(id)) byId.set(id, { id, requestHeaders: {}, extraRequestHeaders: null, responseHeaders: {}, frames: null })
    return byId.get(id)
  }
  /** @type {Promise<void>[]} */
  const pending = []
  cdp.on('Network.requestWillBeSent', (e) => {
    offset ??= e.wallTime - e.timestamp
    const r = of(e.requestId)
    Object.assign(r, { url: e.request.url, method: e.request.method, requestHeaders: e.request.headers, postData: e.request.postData ?? null })
    Object.assign(r, { startTs: e.timestamp, type: e.type })
  })
  cdp.on('Network.requestWillBeSentExtraInfo', (e) => { of(e.requestId).extraRequestHeaders = e.headers })
  cdp.on('Network.responseReceived', (e) => {
    const { status, statusText, headers, mimeType } = e.response
    Object.assign(of(e.requestId), { status, statusText, responseHeaders: headers, mimeType, responseTs: e.timestamp })
  })
  cdp.on('Network.responseReceivedExtraInfo', (e) => { of(e.requestId).extraResponseHeaders = e.headers })
  cdp.on('Network.loadingFinished', (e) => {
    const r = of(e.requestId)
    r.endTs = e.timestamp
    pending.push(cdp.send('Network.getResponseBody', { requestId: e.requestId }).then((b) => { r.body = b }, () => {}))
  })
  cdp.on('Network.webSocketCreated', (e) => Object.assign(of(e.requestId), { url: e.url, method: 'GET', type: 'WebSocket', frames: [] }))
  cdp.on('Network.webSocketWillSendHandshakeRequest', (e) => {
    offset ??= e.wallTime - e.timestamp
    Object.assign(of(e.requestId), { startTs: e.timestamp, requestHeaders: e.request.headers })
  })
  cdp.on('Network.webSocketHandshakeResponseReceived', (e) => {
    const { status, statusText, headers } = e.response
    Object.assign(of(e.requestId), { status, statusText, responseHeaders: headers, responseTs: e.timestamp })
  })
  const frame = (/** @type {'send' | 'receive'} */ type) => (/** @type {any} */ e) => {
    of(e.requestId).frames?.push({ type, time: wall(e.timestamp), opcode: e.response.opcode, data: e.response.payloadData })
  }
  cdp.on('Network.webSocketFrameSent', frame('send'))
  cdp.on('Network.webSocketFrameReceived', frame('receive'))
  await cdp.send('Network.enable')

  return {
    async har () {
      await Promise.all(pending)
      const entries = [...byId.values()].filter((r) => r.url !== undefined && r.startTs !== undefined).map((r) => entryOf(r, wall))
      return { log: { version: '1.2', creator: { name: 'WebInspector', version: '537.36' }, pages: [], entries } }
    }
  }
}

/**
 * @param {Record<string, string>} headers
 * @returns {{ name: string, value: string }[]}
 */
function pairs (headers) {
  const out = []
  // CDP joins repeated headers (Set-Cookie) with newlines, as Chrome's HAR keeps them one per line.
  for (const [name, value] of Object.entries(headers ?? {})) for (const line of String(value).split('\n')) out.push({ name, value: line })
  return out
}

/** @param {any} r @param {(ts: number) => number} wall */
function entryOf (r, wall) {
  const requestHeaders = r.extraRequestHeaders ?? r.requestHeaders
  const responseHeaders = r.extraResponseHeaders ?? r.responseHeaders
  const cookieHeader = Object.entries(requestHeaders).find(([k]) => k.toLowerCase() === 'cookie')?.[1] ?? ''
  const cookies = cookieHeader.split(/;\s*/).filter(Boolean).map((/** @type {string} */ c) => ({ name: c.split('=')[0], value: c.slice(c.indexOf('=') + 1) }))
  const setCookies = pairs(responseHeaders).filter((h) => h.name.toLowerCase() === 'set-cookie')
    .map((h) => ({
      name: h.value.split('=')[0], value: h.value.slice(h.value.indexOf('=') + 1).split(';')[0], path: '/', httpOnly: /httponly/i.test(h.value), secure: false
    }))
  const url = new URL(r.url)
  const isWs = r.frames !== null
  const endTs = r.endTs ?? r.responseTs ?? r.startTs
  const entry = {
    _initiator: { type: 'script' },
    _priority: 'High',
    _resourceType: isWs ? 'websocket' : String(r.type ?? 'other').toLowerCase(),
    cache: {},
    request: {
      method: r.method,
      url: r.url,
      httpVersion: 'HTTP/1.1',
      headers: pairs(requestHeaders),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      cookies,
      headersSize: -1,
      bodySize: r.postData ? Buffer.byteLength(r.postData) : 0,
      ...(r.postData ? { postData: { mimeType: requestHeaders['Content-Type'] ?? requestHeaders['content-type'] ?? '', text: r.postData } } : {})
    },
    response: {
      status: r.status ?? 0,
      statusText: r.statusText ?? '',
      httpVersion: 'HTTP/1.1',
      headers: pairs(responseHeaders),
      cookies: setCookies,
      content: {
        size: r.body ? r.body.body.length : 0,
        mimeType: r.mimeType ?? 'x-unknown',
        ...(r.body ? { text: r.body.body, ...(r.body.base64Encoded ? { encoding: 'base64' } : {}) } : {})
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _transferSize: 0,
      _error: null
    },
    serverIPAddress: '127.0.0.1',
    startedDateTime: new Date(wall(r.startTs) * 1000).toISOString(),
    time: isWs ? 0 : Math.max(0, (endTs - r.startTs) * 1000),
    timings: { blocked: -1, dns: -1, ssl: -1, connect: -1, send: 0, wait: 0, receive: 0, _blocked_queueing: -1 }
  }
  if (isWs) Object.assign(entry, { _webSocketMessages: r.frames })
  return entry
}
