/**
 * A Server-Sent Events reader over node:http for the dashboard tests: collects each `data:`
 * event as parsed JSON; closed by the test (or when the server ends the stream).
 */
import http from 'node:http'

/**
 * @param {import('node:test').TestContext} t
 * @param {string} url the /events URL
 */
export function openEvents (t, url) {
  /** @type {any[]} */
  const events = []
  let ended = false
  let buffer = ''
  const req = http.get(url, (res) => {
    res.setEncoding('utf8')
    res.on('data', (chunk) => {
      buffer += chunk
      let cut
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        for (const line of frame.split('\n')) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)))
      }
    })
    res.on('end', () => { ended = true })
    res.on('close', () => { ended = true })
  })
  req.on('error', () => { ended = true })
  t.after(() => req.destroy())
  return {
    events,
    seconds: () => events.filter((e) => e.type === 'second'),
    get ended () { return ended },
    close: () => req.destroy()
  }
}

/**
 * A request to the dashboard; the answer's status and JSON body.
 * @param {string} url
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string> }} [opts]
 */
export async function request (url, { method = 'GET', body, headers = {} } = {}) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) })
  })
  const text = await res.text()
  let json = null
  try { json = JSON.parse(text) } catch {}
  return { status: res.status, json, text }
}
