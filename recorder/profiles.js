/**
 * A recording's Socket.IO sessions as client profiles. A HAR can hold several sessions: two
 * tabs, a page that opened a second socket, a reload. Each distinct one (its steps, namespaces
 * and payloads) becomes a profile of the scenario; sessions that did the same (a reload that
 * did it again, with another token perhaps) are one profile recorded that many times, written
 * with the handshake of the first. Client i replays the profile
 * `PROFILE_OF[i % total]`, where each profile takes as many slots of the cycle as times it was
 * recorded: the run keeps the recording's proportions, and the first clients already cover
 * every profile. What a run cannot vary per client stays one for all: the server, its
 * Engine.IO path and version (a session elsewhere is named, not replayed).
 */

/**
 * @typedef {import('./model.js').SessionModel} SessionModel
 * @typedef {object} Profile
 * @property {SessionModel} session the one its steps are written from (the first recorded)
 * @property {SessionModel[]} sessions every recorded session it stands for
 * @typedef {object} ProfilePlan
 * @property {Profile[]} profiles the replayed session's first
 * @property {number[]} cycle the profile index of each client slot: client i replays profile cycle[i % cycle.length]
 * @property {{ session: SessionModel, why: string }[]} left sessions not replayed, and why
 * @property {string[]} namespaces every profile's namespaces, in the order they appear: the run's --namespace
 */

/**
 * @param {SessionModel[]} sessions the model's, the replayed one first (it sent the most)
 * @returns {ProfilePlan}
 */
export function planProfiles (sessions) {
  const [first, ...others] = sessions
  /** @type {Profile[]} */
  const profiles = [{ session: first, sessions: [first] }]
  /** @type {ProfilePlan['left']} */
  const left = []
  const signatures = [signature(first)]
  for (const session of others) {
    const why = apart(first, session)
    if (why !== null) {
      left.push({ session, why })
      continue
    }
    const k = signatures.indexOf(signature(session))
    if (k >= 0) {
      profiles[k].sessions.push(session)
      continue
    }
    profiles.push({ session, sessions: [session] })
    signatures.push(signature(session))
  }
  const cycle = profiles.flatMap((p, k) => p.sessions.map(() => k))
  const namespaces = [...new Set(profiles.flatMap((p) => p.session.namespaces))]
  return { profiles, cycle, left, namespaces }
}

/**
 * Why a session cannot be a profile beside the replayed one, or null when it can.
 * @param {SessionModel} first
 * @param {SessionModel} other
 * @returns {string | null}
 */
function apart (first, other) {
  const a = first.engine
  const b = other.engine
  if (a.url.host !== b.url.host) return `it talked to another server (${b.url.host}): a run has one --url; record it alone to replay it`
  if (a.url.pathname !== b.url.pathname) return `it used another Engine.IO path (${b.url.pathname}): a run has one --path; record it alone to replay it`
  if (a.eio !== b.eio) return `it spoke Engine.IO v${b.eio} (the replayed one v${a.eio}): a run speaks one; record it alone to replay it`
  if (!other.steps.some((s) => s.kind !== 'connect') && other.received.length === 0) return 'it only connected (sent nothing, received no event)'
  return null
}

/**
 * What a session did, without its times and without who it was (a reload logs in again and
 * connects with another token): sessions with the same signature are one profile.
 * @param {SessionModel} session
 */
function signature (session) {
  const steps = session.steps.map((s) => [s.kind, s.nsp, s.event ?? null, s.args ?? null, s.acked ?? false, s.room ?? null])
  return JSON.stringify([session.namespaces, steps])
}
