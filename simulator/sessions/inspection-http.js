/**
 * One request of the inspection before a swarm, over node:http / node:https, answered whole:
 * the few requests of a handshake probe and a first contact need no more, and undici (95 files,
 * ~15 MiB in a child) then loads only where lean polling or a login uses it (a process loads only what it uses).
 * What fetch gave the inspection is kept: the signal ends the request and the reading of its
 * body alike (rejecting with the signal's reason: AbortSignal.timeout's TimeoutError), a body
 * the server compressed is decoded, and the text is read as UTF-8.
 */

/**
 * node:http / node:https as require() gives them, on the first request (a child that never inspects loads neither).
 * @param {'http:' | 'https:'} protocol
 */
const builtin = (protocol) => /** @type {typeof import('node:https')} */ (process.getBuiltinModule(protocol === 'https:' ? 'node:https' : 'node:http'))

/**
 * @typedef {object} HttpAnswer
 * @property {number} status
 * @property {import('node:http').IncomingHttpHeaders} headers
 * @property {string} body
 */

/**
 * @param {'http:' | 'https:'} protocol
 * @param {{ localAddress?: string, tls?: import('../../lib/input/tls-trust.js').TlsTrust | null }} options the first client's source address and TLS trust
 * @returns {import('node:http').Agent} keep-alive, as fetch's was: the requests of one look share a connection
 */
export function inspectionAgent (protocol, { localAddress, tls }) {
  const local = localAddress === undefined ? {} : { localAddress }
  return new (builtin(protocol).Agent)({ keepAlive: true, ...local, ...(protocol === 'https:' ? tls : null) })
}

/**
 * @param {URL} url http: or https:
 * @param {{ method: string, headers: Record<string, string>, body?: string, agent: import('node:http').Agent, signal?: AbortSignal }} options
 * @returns {Promise<HttpAnswer>}
 */
export function sendRequest (url, { method, headers, body, agent, signal }) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    /** @type {import('node:http').ClientRequest | null} */
    let request = null
    const onAbort = () => {
      request?.destroy()
      reject(/** @type {AbortSignal} */ (signal).reason)
    }
    const fail = (/** @type {Error} */ error) => {
      signal?.removeEventListener('abort', onAbort)
      reject(error)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    request = builtin(/** @type {'http:' | 'https:'} */ (url.protocol)).request(url, { method, headers, agent }, (response) => {
      /** @type {Buffer[]} */
      const chunks = []
      response.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk))
      response.once('error', fail)
      response.once('end', () => {
        signal?.removeEventListener('abort', onAbort)
        try {
          const bytes = decoded(Buffer.concat(chunks), response.headers['content-encoding'])
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: new TextDecoder().decode(bytes) })
        } catch (error) {
          reject(error)
        }
      })
    })
    request.once('error', fail)
    request.end(body)
  })
}

/**
 * A body as the server encoded it (only when a --header asked for it: the inspection sends no Accept-Encoding of its own).
 * @param {Buffer} bytes
 * @param {string | undefined} encoding Content-Encoding
 */
function decoded (bytes, encoding) {
  const coding = encoding?.trim().toLowerCase()
  if (!coding || coding === 'identity' || bytes.length === 0) return bytes
  const zlib = /** @type {typeof import('node:zlib')} */ (process.getBuiltinModule('node:zlib'))
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(bytes)
  // "deflate" is zlib-wrapped by the standard, raw by some servers: fetch takes both.
  if (coding === 'deflate') return (bytes[0] & 0x0f) === 8 ? zlib.inflateSync(bytes) : zlib.inflateRawSync(bytes)
  if (coding === 'br') return zlib.brotliDecompressSync(bytes)
  return bytes
}
