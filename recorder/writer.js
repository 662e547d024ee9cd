/**
 * Writes a recording's model as a scenario module for `--scenario`: ordinary code a person can
 * read and edit. Its parts: a header saying where it came from and the line that replays it;
 * `login` (the recorded login request, secrets read from the feeder); `identity` (the
 * handshake's auth, query, headers and cookies); `onConnect`, which replays each namespace's
 * recorded steps in order after their recorded pauses (divided by SPEED) and repeats them with
 * `--loop`; and small helpers that count each step done and name the step that failed. A
 * recording of several distinct sessions is written as client profiles (profiles.js): each
 * one's replays and handshake, and the table of which profile client i replays.
 */
import { Typed, buildIdentity } from './identity.js'
import { measuredEvents, replayCommand } from './measured.js'
import { planProfiles } from './profiles.js'

/** What a replay of binary data needs: the lean engine writes a Buffer as JSON ({type, data}), not as an attachment. */
const SIO_ONLY = 'replay with the sio engine (the default); --engine lean sends JSON only'

/** Keys whose string values are text a person typed. */
const TEXT_KEY = /^(text|message|msg|body|content|comment|line)$/i

/**
 * @typedef {object} Written
 * @property {string} module
 * @property {string | null} csv
 * @property {import('./identity.js').Identity} identity
 * @property {import('./measured.js').Measured} measured
 * @property {string[]} command
 * @property {import('./profiles.js').ProfilePlan} plan the client profiles (one per distinct recorded session) and the sessions left out
 * @property {string[]} binary the events whose replay sends binary data (the lean engine sends JSON only)
 */

/**
 * @param {import('./model.js').RecordingModel} model
 * @param {{ source: string, scenario: string, feeder: string }} files names as the user gave them
 * @returns {Written}
 */
export function writeScenario (model, files) {
  const plan = planProfiles(model.sessions)
  const session = model.sessions[0]
  const identity = buildIdentity(session, model.login)
  const several = plan.profiles.length > 1
  let n = 0
  const written = plan.profiles.map((profile, p) => {
    const handshake = p === 0 ? identity : identity.handshake(profile.session)
    const auth = profile.session.steps.find((s) => s.kind === 'connect' && s.auth !== undefined)?.auth
    const fields = handshakeFields(handshake, auth === undefined ? null : identity.code(auth, 'auth'))
    const replays = profileReplays(profile.session, identity, several ? `Profile${p + 1}` : '', several ? n : 0)
    n += replays.steps
    return { fields, replays }
  })
  const binary = [...new Set(plan.profiles.flatMap((p) => p.session.steps).filter((s) => carriesBytes(s.args)).map((s) => String(s.event)))]
  const measured = measuredEvents(several ? mergedSession(plan) : session)
  const csv = identity.feeder.fields.length > 0 ? csvOf(identity.feeder) : null
  const replayed = { engine: session.engine, namespaces: plan.namespaces }
  const command = replayCommand(replayed, measured, { scenario: files.scenario, feeder: csv === null ? null : files.feeder })
  const parts = [
    header(model, plan, files, command, identity, binary),
    "import { setTimeout as sleep } from 'node:timers/promises'\n",
    '/** Recorded pauses are divided by SPEED: 2 replays twice as fast, 0 without pauses (SCENARIO_SPEED overrides it). */',
    'const SPEED = Number(process.env.SCENARIO_SPEED ?? 1)\n',
    identity.login ? loginFunction(identity.login) : '',
    ...(several ? [profilesCode(plan, written)] : [identityFunction(written[0].fields), onConnectFunction(written[0].replays.table)]),
    ...written.flatMap((w) => w.replays.code),
    HELPERS
  ]
  return { module: parts.filter(Boolean).join('\n'), csv, identity, measured, command, plan, binary }
}

/**
 * Whether a value holds bytes (a binary attachment when recorded).
 * @param {unknown} value
 * @returns {boolean}
 */
function carriesBytes (value) {
  if (Buffer.isBuffer(value)) return true
  if (Array.isArray(value)) return value.some(carriesBytes)
  return value !== null && typeof value === 'object' && Object.values(value).some(carriesBytes)
}

/**
 * A profile's replay functions, one per namespace it acted on.
 * @param {import('./model.js').SessionModel} session
 * @param {import('./identity.js').Identity} identity
 * @param {string} suffix of the functions' names ('' with one profile)
 * @param {number} before steps numbered in the profiles before it (failed_step_N names one step of the scenario)
 */
function profileReplays (session, identity, suffix, before) {
  // A namespace the client only connected to (socket.io 2's main one) has nothing to replay, and a replay of it would count as a whole one.
  const acting = session.namespaces.filter((nsp) => session.steps.some((s) => s.nsp === nsp && s.kind !== 'connect'))
  const replayed = acting.length > 0 ? acting : session.namespaces
  let steps = before
  const replays = replayed.map((nsp) => {
    const r = replayFunction(session, nsp, identity, suffix, steps)
    steps = r.last
    return r
  })
  const table = replayed.map((nsp, k) => `${JSON.stringify(nsp)}: ${replays[k].name}`)
  return { table, code: replays.map((r) => r.code), steps: steps - before }
}

/**
 * The sessions of every profile as one, for what the run measures (the events all of them received).
 * @param {import('./profiles.js').ProfilePlan} plan
 * @returns {import('./model.js').SessionModel}
 */
function mergedSession (plan) {
  const sessions = plan.profiles.flatMap((p) => p.sessions)
  /** @type {Map<string, import('./model.js').Received>} */
  const received = new Map()
  for (const r of sessions.flatMap((s) => s.received)) {
    const key = `${r.nsp}\n${r.event}`
    const known = received.get(key)
    if (known) received.set(key, { ...known, count: known.count + r.count, samples: [...known.samples, ...r.samples].slice(0, 50) })
    else received.set(key, r)
  }
  const first = plan.profiles[0].session
  return { ...first, steps: sessions.flatMap((s) => s.steps), received: [...received.values()], namespaces: plan.namespaces }
}

/**
 * @param {import('./model.js').RecordingModel} model
 * @param {import('./profiles.js').ProfilePlan} plan
 * @param {{ source: string, scenario: string, feeder: string }} files
 * @param {string[]} command
 * @param {import('./identity.js').Identity} identity
 * @param {string[]} binary the events that send binary data
 */
function header (model, plan, files, command, identity, binary) {
  const session = plan.profiles[0].session
  const engine = session.engine
  const lines = [
    `Recorded by \`ioswarm record\` from ${files.source} (written by ${model.creator}).`,
    `Session ${engine.url.origin}${engine.url.pathname} (Engine.IO v${engine.eio}, ${engine.transports.join(' then ')}), ` +
      `namespaces ${plan.namespaces.join(', ')}.`,
    ...profileLines(plan),
    '',
    'Replay it:',
    ...command.map((word, k) => `${k === 0 ? '  ' : '    '}${word}${k < command.length - 1 ? ' \\' : ''}`),
    'Add --loop to repeat the recorded steps until the run ends.',
    ...(binary.length > 0 ? [`${binary.join(', ')} send${binary.length > 1 ? '' : 's'} binary data: ${SIO_ONLY}.`] : []),
    ''
  ]
  if (identity.feeder.fields.length > 0) {
    lines.push(`Per-user values come from ${files.feeder} (client i takes row i mod rows: add a row per user): ${identity.feeder.fields.join(', ')}.`)
    const secrets = identity.feeder.secrets
    const are = secrets.length > 1 ? 'are secrets' : 'is a secret'
    if (secrets.length > 0) lines.push(`${secrets.join(', ')} ${are}: the feeder holds the recorded value; keep it out of version control.`)
  }
  lines.push(
    'Each step done counts in the custom figure steps_done; a step that fails while connected counts in failed_step_N and stops',
    'the replay of that session (its error names the step); replays_complete counts whole replays.'
  )
  return `/**\n${lines.map((l) => ` * ${l}`.trimEnd()).join('\n')}\n */`
}

/**
 * The header's lines on the client profiles (when there are several) and on the sessions left out.
 * @param {import('./profiles.js').ProfilePlan} plan
 */
function profileLines (plan) {
  const lines = []
  if (plan.profiles.length > 1) {
    lines.push('', `The recording holds ${plan.cycle.length} sessions that did ${plan.profiles.length} different things: each is a client profile.`)
    for (const [k, p] of plan.profiles.entries()) {
      const times = p.sessions.length > 1 ? `, recorded ${p.sessions.length} times` : ''
      lines.push(`  profile ${k + 1} (sid ${p.session.engine.sid}${times}): ${sentOf(p.session) || 'sent nothing: it listens'}`)
    }
    lines.push(
      `Client i replays profile PROFILE_OF[i % ${plan.cycle.length}] + 1: each profile takes the clients in the proportion it was recorded.`,
      'Every client connects to every namespace of the run (--namespace is one for all) and replays its profile\'s steps there;',
      'on a namespace its profile did not use it only listens. profileN_replays counts whole replays of profile N.'
    )
  }
  for (const { session, why } of plan.left) lines.push(`Not replayed: session ${session.engine.sid}: ${why}.`)
  return lines
}

/**
 * What a session sent, for people: `/chat join(room-7), /chat chat (ack) ×2`.
 * @param {import('./model.js').SessionModel} session
 */
export function sentOf (session) {
  /** @param {import('./model.js').Step} s */
  const what = (s) => s.kind === 'join' ? `${s.event}(${s.room})` : s.acked ? `${s.event} (ack)` : s.event
  const by = new Map()
  const sent = session.steps.filter((s) => s.kind !== 'connect' && s.kind !== 'disconnect')
  for (const n of sent.map((s) => `${s.nsp} ${what(s)}`)) by.set(n, (by.get(n) ?? 0) + 1)
  return [...by].map(([n, c]) => (c > 1 ? `${n} ×${c}` : n)).join(', ')
}

/** @param {NonNullable<import('./identity.js').Identity['login']>} login */
function loginFunction (login) {
  const init = login.kind === 'json' ? `, { json: ${login.body} }` : login.kind === 'form' ? `, { form: ${login.body} }` : ''
  return `/** The recorded login, before the socket: its cookies go into the client's jar, its JSON answer is ctx.login. */
export async function login (http, ctx) {
  const res = await http.request(${JSON.stringify(login.method)}, ${JSON.stringify(login.path)}${init})
  if (!res.ok) throw Object.assign(new Error(\`login refused: HTTP \${res.status}\`), { status: res.status })
  try {
    const answer = res.json()
    return answer && typeof answer === 'object' ? answer : {}
  } catch {
    return {}
  }
}
`
}

/**
 * A handshake's fields as code lines (auth, query, headers, cookies); none when it sent nothing of its own.
 * @param {Pick<import('./identity.js').Identity, 'query' | 'headers' | 'cookies'>} handshake
 * @param {string | null} authCode
 * @returns {string[]}
 */
function handshakeFields (handshake, authCode) {
  const fields = []
  if (authCode !== null) fields.push(`auth: ${authCode}`)
  for (const [name, map] of /** @type {const} */ ([['query', handshake.query], ['headers', handshake.headers], ['cookies', handshake.cookies]])) {
    const entries = Object.entries(map)
    if (entries.length > 0) fields.push(`${name}: { ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')} }`)
  }
  return fields
}

/** @param {string[]} fields */
function identityFunction (fields) {
  if (fields.length === 0) return ''
  return `/** The recorded handshake: what the page sent, per-user values read per client. */
export function identity (i, ctx) {
  return {
${fields.map((f) => `    ${f}`).join(',\n')}
  }
}
`
}

/** @param {string[]} table the namespaces' replay functions, `"/chat": replayChat` */
function onConnectFunction (table) {
  return `/** Each namespace's recorded steps, by namespace. */
const REPLAYS = {
${table.map((row) => `  ${row}`).join(',\n')}
}

/** Replays the recorded steps on each namespace the client connects to (again and again with --loop). */
export async function onConnect (socket, ctx) {
  const replay = REPLAYS[ctx.namespace]
  if (replay === undefined) return
  do {
    await replay(socket, ctx)
    ctx.count('replays_complete')
  } while (ctx.loop && socket.connected)
}
`
}

/**
 * The client profiles: each one's handshake and replays, which profile client i takes, and the
 * hooks that pick them.
 * @param {import('./profiles.js').ProfilePlan} plan
 * @param {{ fields: string[], replays: { table: string[] } }[]} written each profile's handshake fields and replay table
 */
function profilesCode (plan, written) {
  const same = written.every((w) => w.fields.join('\n') === written[0].fields.join('\n'))
  const handshake = (/** @type {string[]} */ fields) => (fields.length === 0 ? 'undefined' : `({\n${fields.map((f) => `    ${f}`).join(',\n')}\n  })`)
  const identity = written[0].fields.length === 0 && same
    ? ''
    : same
      ? identityFunction(written[0].fields)
      : `/** The recorded handshakes, one per profile: what each session sent, per-user values read per client. */
const HANDSHAKES = [
${written.map((w) => `  (i, ctx) => ${handshake(w.fields)}`).join(',\n')}
]

/** The handshake of client i's profile. */
export function identity (i, ctx) {
  return HANDSHAKES[profileOf(i)](i, ctx)
}
`
  return `/** Each profile's recorded steps, by namespace: profile N is PROFILES[N - 1]. */
const PROFILES = [
${written.map((w) => `  { ${w.replays.table.join(', ')} }`).join(',\n')}
]

/** Client i replays profile PROFILE_OF[i % ${plan.cycle.length}]: each profile as many times as it was recorded. */
const PROFILE_OF = [${plan.cycle.join(', ')}]

/** @param {number} i a client's index in the run */
function profileOf (i) {
  return PROFILE_OF[i % PROFILE_OF.length]
}

${identity ? `${identity}\n` : ''}/** Replays client i's profile on each namespace the client connects to (again and again with --loop). */
export async function onConnect (socket, ctx) {
  const profile = profileOf(ctx.i)
  const replay = PROFILES[profile][ctx.namespace]
  if (replay === undefined) return
  do {
    await replay(socket, ctx)
    ctx.count('replays_complete')
    ctx.count(\`profile\${profile + 1}_replays\`)
  } while (ctx.loop && socket.connected)
}
`
}

/**
 * One namespace's steps as a function.
 * @param {import('./model.js').SessionModel} session
 * @param {string} nsp
 * @param {import('./identity.js').Identity} identity
 * @param {string} suffix of its name: the profile ('' with one)
 * @param {number} before the number of the step before its first
 * @returns {{ name: string, code: string, last: number }} last: its last step's number
 */
function replayFunction (session, nsp, identity, suffix, before) {
  const name = `replay${nsp === '/' ? 'Main' : nsp.replace(/[^A-Za-z0-9]+(.)?/g, (_, c) => (c ?? '').toUpperCase())}${suffix}`
  const connect = session.steps.find((s) => s.kind === 'connect' && s.nsp === nsp)
  let lastMs = connect?.atMs ?? session.engine.first.startMs
  const lines = []
  let n = before
  for (const step of session.steps) {
    if (step.nsp !== nsp || step.kind === 'connect') continue
    const pauseMs = Math.round(step.atMs - lastMs)
    lastMs = step.atMs
    if (step.kind === 'disconnect') {
      lines.push(`  // The recorded client left ${nsp} here (${pauseMs} ms later); the run ends its sessions itself.`)
      continue
    }
    n++
    lines.push(stepLine(step, n, pauseMs, identity))
  }
  const body = lines.length > 0 ? lines.join('\n') : '  // The recorded client sent nothing on this namespace: it only listened.'
  const typing = lines.some((l) => l.includes('typed('))
  return {
    name,
    last: n,
    code: `/** What the recorded client did on ${nsp}, in order, each step after its recorded pause (ms). */
async function ${name} (socket, ctx) {
  const step = stepper(socket, ctx)
${typing ? '  const typed = typist(ctx)\n' : ''}${body}
}
`
  }
}

/**
 * @param {import('./model.js').Step} step
 * @param {number} n
 * @param {number} pauseMs
 * @param {import('./identity.js').Identity} identity
 */
function stepLine (step, n, pauseMs, identity) {
  const event = JSON.stringify(step.event)
  const args = (step.args ?? []).map((a) => identity.code(markTyped(a, ''), 'emit'))
  const at = `  await step(${n}, ${pauseMs}, `
  if (step.kind === 'join') {
    const room = identity.code(step.room, 'join')
    const call = step.acked ? `socket.join(${room}, { event: ${event}, payload: ${args[0]} })` : `socket.emit(${[event, ...args].join(', ')})`
    return `${at}${JSON.stringify(`join ${step.room}`)}, () => ${call})`
  }
  if (step.acked) {
    const note = step.ack ? ` // acked with ${short(JSON.stringify(step.ack))}` : ' // no ack came in the recording'
    return `${at}${JSON.stringify(`${step.event} (ack)`)}, () => socket.emitWithAck(${[event, ...args].join(', ')}))${note}`
  }
  if (step.reply) {
    const match = step.reply.field === null ? '' : `, ${JSON.stringify(step.reply.field)}`
    const call = `socket.emitAndWait(${event}, [${args.join(', ')}], ${JSON.stringify(step.reply.event)}${match})`
    return `${at}${JSON.stringify(`${step.event} (reply ${step.reply.event})`)}, () => ${call})`
  }
  return `${at}${JSON.stringify(step.event)}, () => socket.emit(${[event, ...args].join(', ')}))`
}

/**
 * Marks the strings a person typed: values of text-like keys, and plain arguments with a space.
 * @param {unknown} value
 * @param {string} key
 * @returns {unknown}
 */
function markTyped (value, key) {
  if (typeof value === 'string') return (TEXT_KEY.test(key) || (key === '' && /\s/.test(value.trim()))) && value !== '' ? new Typed(value) : value
  if (Array.isArray(value)) return value.map((v) => markTyped(v, key))
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markTyped(v, k)]))
  return value
}

/** @param {string} text */
const short = (text) => (text.length > 60 ? `${text.slice(0, 57)}...` : text)

/** @param {{ fields: string[], row: Record<string, string> }} feeder */
function csvOf (feeder) {
  const cell = (/** @type {string} */ v) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)
  return `${feeder.fields.map(cell).join(',')}\n${feeder.fields.map((f) => cell(feeder.row[f])).join(',')}\n`
}

const HELPERS = `/**
 * Runs step n after its recorded pause: counts it done (steps_done), or counts where it failed
 * (failed_step_n, unless the session ended meanwhile) and throws, which ends this replay with an
 * error naming the step.
 */
function stepper (socket, ctx) {
  return async function step (n, pauseMs, what, run) {
    if (pauseMs > 0 && SPEED > 0) await sleep(pauseMs / SPEED, undefined, { ref: false })
    let failure = null
    try {
      if ((await run()) === false) failure = 'not connected'
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error)
    }
    if (failure === null) return ctx.count('steps_done')
    // A step the session's end cut short (a drop, the run's end) is not where the replay failed: drops are counted as such.
    if (socket.connected) ctx.count(\`failed_step_\${n}\`)
    throw new Error(\`step \${n} (\${what}) failed: \${failure}\`)
  }
}

/** Lines typed so far, by client (across its reconnects and loops). */
const typedSoFar = new Map()

/** Text a person typed, made unique per client and per send: "hello #12.3" is client 12's third line. */
function typist (ctx) {
  return (text) => {
    const seq = (typedSoFar.get(ctx.i) ?? 0) + 1
    typedSoFar.set(ctx.i, seq)
    return \`\${text} #\${ctx.i}.\${seq}\`
  }
}
`
