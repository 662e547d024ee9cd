/**
 * The fleet's hosts: a hosts file (one `[user@]host[:port]` per line, `#` comments) or a
 * comma-separated list. Every entry is checked before anything runs, because a host that
 * starts with `-` would be read by ssh as an option.
 */
import { readFile } from 'node:fs/promises'
import { CODES, IoswarmError, invalidOption } from '../../lib/errors.js'

/**
 * @typedef {object} FleetHost
 * @property {string} label as written (without comments), used to prefix its output
 * @property {string | null} user
 * @property {string} host name or address; an IPv6 address without brackets
 * @property {number | null} port null = ssh's default (or the ssh config's)
 */

/** Most hosts one fleet may have: every host is one ssh process at a time. */
const MAX_HOSTS = 1000

const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/
// A DNS name or IPv4 address (labels of letters, digits, `-` and `_`, never starting with `-`).
const NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/
const IPV6 = /^[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?$/

/**
 * Parses one entry; returns an error text (without location) instead of throwing.
 * @param {string} text trimmed, non-empty
 * @returns {FleetHost | string}
 */
export function parseHost (text) {
  const at = text.lastIndexOf('@')
  const user = at === -1 ? null : text.slice(0, at)
  const rest = at === -1 ? text : text.slice(at + 1)
  if (user !== null && !USER.test(user)) return `bad user name ${JSON.stringify(user)} (letters, digits, . _ -; not starting with . or -)`
  const match = /^\[([^\]]*)\](?::(.*))?$/.exec(rest) ?? /^([^:]*)(?::(.*))?$/.exec(rest)
  if (!match) return `bad host ${JSON.stringify(rest)}: an IPv6 address needs brackets, as in [2001:db8::1]:22`
  const [, host, portText] = match
  const bracketed = rest.startsWith('[')
  if (bracketed ? !(IPV6.test(host) && host.includes(':')) : !NAME.test(host)) {
    return `bad host ${JSON.stringify(host)} (a host name, an IPv4 address or a [bracketed] IPv6 address)`
  }
  let port = null
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN
    if (!(port >= 1 && port <= 65535)) return `bad port ${JSON.stringify(portText)} (1 to 65535)`
  }
  return { label: text, user, host, port }
}

/**
 * Parses a hosts file's text. Errors name the file and line, as `hosts.txt:3: …`.
 * @param {string} text
 * @param {string} file shown in errors
 * @returns {FleetHost[]}
 */
export function parseHostsText (text, file) {
  /** @type {FleetHost[]} */
  const hosts = []
  /** @type {Map<string, number>} */
  const seen = new Map()
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const entry = lines[i].replace(/(^|\s)#.*$/, '').trim()
    if (entry === '') continue
    const where = `${file}:${i + 1}`
    if (/\s/.test(entry)) throw inputError(`${where}: one host per line, got ${JSON.stringify(entry)}`)
    const host = parseHost(entry)
    if (typeof host === 'string') throw inputError(`${where}: ${host}`)
    const key = hostKey(host)
    if (seen.has(key)) throw inputError(`${where}: ${entry} is already on line ${seen.get(key)}`)
    seen.set(key, i + 1)
    hosts.push(host)
  }
  if (hosts.length === 0) throw inputError(`${file}: no hosts (one [user@]host[:port] per line, # starts a comment)`)
  if (hosts.length > MAX_HOSTS) throw inputError(`${file}: ${hosts.length} hosts, at most ${MAX_HOSTS}`)
  return hosts
}

/**
 * Reads and parses a hosts file.
 * @param {string} file
 * @returns {Promise<FleetHost[]>}
 */
export async function readHostsFile (file) {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new IoswarmError(CODES.INPUT, `cannot read the hosts file ${file}: ${/** @type {Error} */ (error).message}`, { cause: error })
  }
  return parseHostsText(text, file)
}

/**
 * Parses `--hosts a,b,c`.
 * @param {string} list
 * @returns {FleetHost[]}
 */
export function parseHostsList (list) {
  try {
    return parseHostsText(list.split(',').join('\n'), '--hosts')
  } catch (error) {
    // Same checks, but "--hosts:2" means the second entry, said so.
    const message = /** @type {Error} */ (error).message.replace(/^--hosts:(\d+):/, 'entry $1:')
    throw invalidOption('--hosts', message.replace(/^--hosts: /, ''))
  }
}

/**
 * The destination ssh is given: `user@host` (IPv6 without brackets, the port goes to -p).
 * @param {FleetHost} host
 */
export function sshDestination (host) {
  return host.user ? `${host.user}@${host.host}` : host.host
}

/** @param {FleetHost} host */
function hostKey (host) {
  return `${host.user ?? ''}@${host.host.toLowerCase()}:${host.port ?? ''}`
}

/** @param {string} message */
function inputError (message) {
  return new IoswarmError(CODES.INPUT, message)
}
