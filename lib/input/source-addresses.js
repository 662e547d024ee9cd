/**
 * `--source-address`: the local addresses a simulator opens its connections from. Linux gives
 * one (source address, destination address:port) pair at most `ip_local_port_range` ports, so
 * N source addresses carry N times the clients to one server address. Parsed here
 * (addresses only: a hostname would hide which address a connection leaves from); whether each
 * one is on this host is checked where the simulator runs (checkLocalAddresses).
 */
import { isIPv4, isIPv6 } from 'node:net'
import os from 'node:os'
import { invalidOption } from '../errors.js'

/** Most source addresses one simulator takes (a /22). */
const MAX_SOURCE_ADDRESSES = 1024

const ALLOWED = 'IP addresses of this host, comma-separated, and/or IPv4 ranges such as 10.0.0.2-10.0.0.9 or 10.0.0.2-9 ' +
  `(at most ${MAX_SOURCE_ADDRESSES} addresses)`

/**
 * The addresses of --source-address values (a string, or one per flag / line), expanded and
 * without duplicates; [] when not given.
 * @param {unknown} value
 * @param {string} flag
 * @returns {string[]}
 */
export function parseSourceAddresses (value, flag) {
  if (value === undefined || value === null || value === '') return []
  const items = [value].flat().flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '')
  /** @type {Set<string>} */
  const out = new Set()
  for (const item of items) {
    if (isIPv4(item) || isIPv6(item)) out.add(item)
    else for (const address of expandRange(item, flag)) out.add(address)
    if (out.size > MAX_SOURCE_ADDRESSES) throw invalidOption(flag, `gives more than ${MAX_SOURCE_ADDRESSES} addresses; takes ${ALLOWED}`)
  }
  return [...out]
}

/**
 * `10.0.0.2-10.0.0.9` or `10.0.0.2-9` → every address from the first to the last.
 * @param {string} item
 * @param {string} flag
 */
function expandRange (item, flag) {
  const dash = item.indexOf('-')
  const first = dash > 0 ? item.slice(0, dash) : ''
  let last = dash > 0 ? item.slice(dash + 1) : ''
  if (/^\d{1,3}$/.test(last)) last = `${first.split('.').slice(0, 3).join('.')}.${last}`
  if (!isIPv4(first) || !isIPv4(last)) {
    const what = dash > 0 ? 'a range of two IPv4 addresses' : /[a-z]/i.test(item) ? 'a hostname' : 'an address'
    const hint = dash <= 0 && what === 'a hostname' ? ' (a hostname: give its address, the one a connection leaves from)' : ''
    throw invalidOption(flag, `takes ${ALLOWED}; ${JSON.stringify(item)} is not ${dash > 0 ? what : 'an IP address'}${hint}`)
  }
  const low = toNumber(first)
  const high = toNumber(last)
  if (high < low) throw invalidOption(flag, `range ${JSON.stringify(item)} goes down; takes ${ALLOWED}`)
  if (high - low + 1 > MAX_SOURCE_ADDRESSES) throw invalidOption(flag, `range ${JSON.stringify(item)} has ${high - low + 1} addresses; takes ${ALLOWED}`)
  return Array.from({ length: high - low + 1 }, (_, k) => toAddress(low + k))
}

/** @param {string} address IPv4 */
function toNumber (address) {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

/** @param {number} n */
function toAddress (n) {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.')
}

/**
 * Throws (exit 2) naming the first address that no interface of this host has.
 * @param {string[]} addresses
 * @param {string} [flag]
 * @param {NodeJS.Dict<os.NetworkInterfaceInfo[]>} [interfaces] os.networkInterfaces() (tests)
 */
export function checkLocalAddresses (addresses, flag = '--source-address', interfaces = os.networkInterfaces()) {
  if (addresses.length === 0) return
  const all = Object.values(interfaces).flatMap((list) => list ?? [])
  const local = new Set(all.map((i) => i.address))
  // Linux answers on the whole loopback subnet (127.0.0.0/8), not only on 127.0.0.1.
  const loopback = all.filter((i) => i.internal && i.family === 'IPv4' && i.cidr).map((i) => subnetOf(String(i.cidr)))
  const foreign = addresses.find((a) => !local.has(a) && !(isIPv4(a) && loopback.some(([base, mask]) => (toNumber(a) & mask) >>> 0 === base)))
  if (foreign === undefined) return
  const device = Object.keys(interfaces).find((name) => name !== 'lo') ?? 'eth0'
  const has = `${[...local].slice(0, 8).join(', ')}${local.size > 8 ? ', …' : ''}`
  throw invalidOption(flag, `takes addresses of this host's interfaces; ${foreign} is on none (this host has ${has}). ` +
    `Add it first, e.g. \`ip addr add ${foreign}/24 dev ${device}\``)
}

/**
 * [network, mask] of an IPv4 CIDR, as unsigned 32-bit numbers.
 * @param {string} cidr
 * @returns {[number, number]}
 */
function subnetOf (cidr) {
  const [address, bits] = cidr.split('/')
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0
  return [(toNumber(address) & mask) >>> 0, mask]
}

/**
 * @typedef {object} SourceAddressCount
 * @property {string} address
 * @property {number} refused source ports the kernel refused (skipped for the next one)
 * @property {number} exhausted connections that found no free source port (failed)
 */

/**
 * Per-address counts over every destination (and, merged, every worker).
 * @param {{ address: string, refused: number, exhausted: number }[]} counts
 * @returns {SourceAddressCount[]}
 */
export function sumByAddress (counts) {
  /** @type {Map<string, SourceAddressCount>} */
  const by = new Map()
  for (const c of counts) {
    const into = by.get(c.address) ?? { address: c.address, refused: 0, exhausted: 0 }
    by.set(c.address, { address: c.address, refused: into.refused + c.refused, exhausted: into.exhausted + c.exhausted })
  }
  return [...by.values()]
}
