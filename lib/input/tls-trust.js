/**
 * The TLS trust a simulator's clients are given: `--ca FILE` (PEM certificates to trust, on
 * top of Node's own) and `--insecure` (no verification). Files are checked when options are
 * parsed, read when a swarm starts.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { invalidOption } from '../errors.js'

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----'

/** node:tls as require() gives it, with --ca: its ES module facade would read every export at load, Node's root certificates too (a process loads only what it uses). */
const tls = () => /** @type {typeof import('node:tls')} */ (process.getBuiltinModule('node:tls'))

/**
 * `--ca FILE` (repeatable) → absolute paths of readable PEM certificate files.
 * @param {unknown} value
 * @param {string} flag
 * @returns {string[]}
 */
export function parseCaFiles (value, flag) {
  if (value === undefined || value === null) return []
  return [value].flat().map((item) => {
    const path = resolve(String(item))
    let text
    try {
      text = readFileSync(path, 'utf8')
    } catch (error) {
      const code = /** @type {{ code?: string }} */ (error).code ?? 'error'
      throw invalidOption(flag, `cannot read ${JSON.stringify(String(item))} (${code}): give a PEM file of the certificate(s) to trust`)
    }
    if (!text.includes(PEM_CERTIFICATE)) {
      throw invalidOption(flag, `${JSON.stringify(String(item))} is not a PEM certificate file (no "${PEM_CERTIFICATE}" line)`)
    }
    return path
  })
}

/**
 * @typedef {object} TlsTrust
 * @property {import('node:tls').SecureContext} [secureContext] Node's roots and the --ca files: one context for
 *   every connection (a `ca` per connection would build a context each time, parsing every certificate)
 * @property {boolean} rejectUnauthorized false with --insecure
 */

/**
 * Node TLS options of the clients, or null when neither flag is given (Node's defaults).
 * @param {{ ca?: string[] | null, insecure?: boolean }} options normalised
 * @returns {TlsTrust | null}
 */
export function tlsTrust ({ ca, insecure }) {
  if (!ca?.length && !insecure) return null
  /** @type {TlsTrust} */
  const trust = { rejectUnauthorized: !insecure }
  // Node's `ca` replaces its roots: keep them beside the files (a public certificate stays trusted).
  if (ca?.length) trust.secureContext = tls().createSecureContext({ ca: [...tls().rootCertificates, ...ca.map((path) => readFileSync(path, 'utf8'))] })
  return trust
}

/** Codes of a certificate Node did not trust (OpenSSL's, and Node's for a name mismatch). */
const CERTIFICATE_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_UNTRUSTED', 'ERR_TLS_CERT_ALTNAME_INVALID'
])

/**
 * What to do about a certificate failure, or '' when `code` is not one.
 * @param {string | undefined} code
 */
export function certificateHint (code) {
  if (code === undefined || !CERTIFICATE_ERRORS.has(code)) return ''
  return code === 'ERR_TLS_CERT_ALTNAME_INVALID'
    ? 'the certificate is not for this host name: use the name it was issued for, or --insecure to skip verification'
    : 'the server\'s certificate is not trusted: give its CA (or the certificate itself) with --ca FILE, or skip verification with --insecure'
}
