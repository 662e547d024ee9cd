/**
 * One meaning per flag: an option that several commands take says one thing on each, as k6's
 * --vus and --duration or Locust's --users do, so that a command line carried from one
 * command to another runs the same test. The options table holds every option once; these
 * tests walk it and fail when a shared option's text or its normaliser differs between
 * commands without a reviewed reason, when a count of clients reads per simulator without its
 * name saying so, or when a length does not say whether the ramp is in it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { OPTIONS, forCommand, optionsOf } from '../../../lib/cli-options/index.js'

/** Every command, as the table names them. */
const COMMANDS = ['simulate', 'run', 'capacity', 'serve', 'broadcast', 'report', 'probe', 'record', 'fleet up', 'fleet exec', 'fleet down', 'fleet status']

/**
 * Shared options whose describe or details differ by command, reviewed: each text names the
 * same quantity in its command's context. The reason says which quantity, in one line. Any
 * other option of several commands has one describe and one details.
 */
const CONTEXT_ONLY = Object.freeze({
  clients: 'the whole swarm everywhere; run and fleet up say a bare one is refused for now, capacity that it counts with --vary emit-rate',
  'max-clients': 'the whole swarm\'s room everywhere; run and fleet up say it is over all their simulators',
  url: 'the server under test; fleet up\'s as its hosts reach it',
  host: 'the address the command\'s server binds: serve\'s, or record\'s recording proxy',
  target: 'the app server under test: run and capacity load it, record\'s proxy forwards a browser to it',
  parser: 'the packet encoding; serve\'s is the one it speaks, which clients must match',
  event: 'the broadcast event; run broadcasts on the event its simulators measure',
  ramp: 'the window connects are spread over; capacity\'s spreads the clients each step adds',
  duration: 'the whole run, the ramp included; run says a bare one is refused for now and that it goes without rounds',
  window: 'the length of a result window; run and capacity say their defaults and what merges into one',
  phases: 'a load profile of the whole swarm; run\'s goes without rounds',
  'max-payload': 'one client\'s payload limit; run sets its simulators\' from it',
  'message-timeout': 'how long a message stays open for receipts; run and broadcast --run wait that long for every report of it',
  id: 'this process\'s id in results: a simulator\'s, a server\'s or a probe\'s',
  protocol: 'the wire protocol; serve and run say what the reference server speaks',
  simulators: 'simulator processes on one machine: this one for run and capacity, each host for fleet up',
  rounds: 'broadcast rounds COUNTxINTERVAL_MS; run also takes none',
  'ping-interval': 'the reference server\'s pingInterval: serve\'s own, or the one run and capacity start',
  token: 'the broadcast token of the server the command talks to',
  size: 'payload bytes per broadcast message',
  via: 'how broadcasts are triggered; broadcast alone has redis-emitter',
  redis: 'the Redis of the run\'s collector; serve also puts its adapters on it',
  run: 'the run id in the collector',
  out: 'where the command writes its output: a directory of results, or the one file report and record write',
  assert: 'a threshold, judged on the result',
  'metrics-port': 'the port the command\'s live Prometheus metrics are served on',
  dashboard: 'the port of the live dashboard page: a run\'s, a search\'s, or a recording played back',
  json: 'print the command\'s result as JSON on stdout',
  quiet: 'no progress on stderr',
  'auth-token': 'the token the reference server asks of clients',
  junit: 'the verdicts as JUnit XML',
  namespace: 'the app\'s namespaces: those clients join, serve serves and broadcast sends into'
})

/**
 * Option names with rows of their own in different tables (never on one command), reviewed:
 * the same meaning, and (for those in PARSED_APART) why each row parses its own way.
 */
const SAME_NAME = Object.freeze({
  url: 'the server\'s URL: simulate and fleet up take several, broadcast one',
  namespace: 'the app\'s namespaces: serve and broadcast normalise them to a list, simulate hands them to its clients as given',
  event: 'the broadcast event: simulate measures several (or *), serve and broadcast send on one',
  rooms: 'R rooms room-0 … room-{R-1}: clients join them (simulate), messages go round-robin to them (broadcast), each with its bound',
  rounds: 'broadcast rounds COUNTxINTERVAL_MS or none; capacity\'s row has a shorter default, each step\'s',
  'connect-timeout': 'clients past the ramp (run, capacity); the fleet commands only refuse it, naming --ssh-connect-timeout, their ssh timeout\'s spelling'
})
/** The names of SAME_NAME whose rows parse differently (type, key or normaliser). */
const PARSED_APART = Object.freeze(['url', 'namespace', 'event', 'rooms', 'connect-timeout'])

/** Aliases that stand for different options on different commands (never on one), reviewed. */
const SAME_ALIAS = Object.freeze({
  o: 'ssh\'s own -o on the fleet commands; --out elsewhere'
})

/** @param {import('../../../lib/cli-options/define.js').OptionDef} o */
const commandsOf = (o) => COMMANDS.filter((c) => optionsOf(c).includes(o))

/**
 * Each text of a row as the commands that take it show it: describe and details.
 * @param {import('../../../lib/cli-options/define.js').OptionDef} o
 */
function textsOf (o) {
  return commandsOf(o).flatMap((c) => [forCommand(o.describe, c), ...(o.details === undefined ? [] : [forCommand(o.details, c)])])
}

/** @param {Readonly<Record<string, string>>} list */
function assertReasons (list) {
  for (const [name, why] of Object.entries(list)) assert.match(why, /^[^\n]{10,160}$/, `${name}: a one-line reason`)
}

test('an option several commands take has one describe and one details, unless a reviewed reason says its texts name one quantity in each context', () => {
  assertReasons(CONTEXT_ONLY)
  const needed = new Set()
  for (const o of OPTIONS) {
    if (commandsOf(o).length < 2) continue
    if (typeof o.describe === 'string' && (o.details === undefined || typeof o.details === 'string')) continue
    needed.add(o.name)
    assert.ok(o.name in CONTEXT_ONLY, `--${o.name} (${commandsOf(o).join(', ')}) has a text per command: give it one, or a reviewed reason in CONTEXT_ONLY`)
  }
  assert.deepEqual(Object.keys(CONTEXT_ONLY).filter((name) => !needed.has(name)), [], 'no reason is kept for an option that no longer needs it')
})

test('rows that share a name parse alike (type, key, normaliser), unless a reviewed reason says why not; an alias is one option, or reviewed', () => {
  assertReasons(SAME_NAME)
  assertReasons(SAME_ALIAS)
  /** @type {Map<string, typeof OPTIONS>} */
  const byName = new Map()
  for (const o of OPTIONS) byName.set(o.name, [...(byName.get(o.name) ?? []), o])
  const several = [...byName].filter(([, rows]) => rows.length > 1)
  assert.deepEqual(several.map(([name]) => name).sort(), Object.keys(SAME_NAME).sort(), 'a name with rows in several tables is reviewed')
  const apart = several.filter(([, rows]) => new Set(rows.map((o) => JSON.stringify([o.type, o.array ?? false, o.to ?? null, String(o.parse ?? '')]))).size > 1)
  assert.deepEqual(
    apart.map(([name]) => name).sort(),
    [...PARSED_APART].sort(),
    'rows of one name parse alike (one normaliser), or are reviewed in PARSED_APART'
  )
  /** @type {Map<string, Set<string>>} */
  const byAlias = new Map()
  for (const o of OPTIONS) if (o.alias) byAlias.set(o.alias, new Set([...(byAlias.get(o.alias) ?? []), o.name]))
  const shared = [...byAlias].filter(([, names]) => names.size > 1).map(([alias]) => alias)
  assert.deepEqual(shared.sort(), Object.keys(SAME_ALIAS).sort(), 'an alias that stands for two options is reviewed')
})

test('a count of clients is the whole swarm unless its name says "per"; a run\'s length says whether the ramp is in it', () => {
  const perPart = /\b(clients|room) (per|of each|for each) (simulator|host|worker|process|pod)\b/i
  const counts = OPTIONS.filter((o) => /clients/.test(o.name) && !/per/.test(o.name))
  assert.ok(counts.length >= 3, counts.map((o) => o.name).join(', '))
  for (const o of counts) for (const text of textsOf(o)) assert.doesNotMatch(text, perPart, `--${o.name}: ${text}`)
  // The seeded mistake this catches: run's old --clients text.
  assert.match('Clients per simulator', perPart)
  const lengths = OPTIONS.filter((o) => ['duration', 'total-duration', 'hold'].includes(o.name))
  assert.equal(lengths.length, 3)
  for (const o of lengths) {
    for (const c of commandsOf(o)) assert.match(forCommand(o.describe, c), /the ramp included|after the ramp/, `${c} --${o.name}`)
  }
})
