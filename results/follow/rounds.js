/**
 * After a round of broadcasts: wait until every live simulator has reported every message
 * of the round (bounded), then read the round's totals. Used by the runner and by
 * `ioswarm broadcast --redis`.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { formatBusy, formatMs } from '../../lib/text/format.js'

/**
 * @param {import('../collector/types.js').Collector} collector
 * @param {string} runId
 * @param {{ round: number, sent: { id: string, batch?: string }[], timeoutMs: number, signal?: AbortSignal }} options
 *   sent: the round's messages as the broadcaster answered them; their batch is the broadcaster's (messages of another
 *   broadcaster with the same ids are not this round's)
 * @returns {Promise<{ round: import('../../lib/schema/result-schema.js').RoundResult | null, complete: boolean, simulators: number }>}
 */
export async function waitForRound (collector, runId, { round, sent, timeoutMs, signal }) {
  const deadline = Date.now() + timeoutMs
  const wanted = new Set(sent.map((m) => m.id))
  const batch = sent[0]?.batch
  let complete = false
  let simulators = 0
  while (!signal?.aborted) {
    const live = (await collector.listSimulators(runId)).filter((s) => s.alive || s.final)
    simulators = live.length
    // A server that does not echo the batch (not the reference server) leaves it out: matched by id.
    const messages = (await collector.getMessages(runId)).filter((m) => wanted.has(m.id) && (batch === undefined || m.batch === undefined || m.batch === batch))
    complete = messages.length === wanted.size && messages.every((m) => m.simulators >= simulators)
    if (complete || Date.now() > deadline) break
    await sleep(500)
  }
  const rounds = await collector.getRounds(runId)
  return { round: rounds.find((r) => r.round === round) ?? null, complete, simulators }
}

/**
 * The simulators' own floor over a round's messages, for a person: the median and largest
 * CPU a simulator spent draining a message, the wall spread of that largest drain, and the
 * busiest share any simulator had. Compare with the relative delays: a floor close to the
 * spread (busiest near 100 %) means the simulator itself may have made it.
 * @param {import('../../lib/schema/result-schema.js').RoundFloor} floor
 */
function formatRoundFloor (floor) {
  return `simulator floor p50 ${formatMs(floor.p50Ms)} max ${formatMs(floor.maxMs)} (in a ${formatMs(floor.spreadAtMaxMs)} spread), ` +
    `busiest ${formatBusy(floor.busyMax)}`
}

/**
 * One line for a round's results: clients reached, missing, relative and absolute p50/p99,
 * copies to the wrong clients or twice (when there were any), and the simulators' own floor.
 * @param {number} roundNo
 * @param {import('../../lib/schema/result-schema.js').RoundResult | null} round
 * @param {{ complete: boolean, simulators: number }} status
 */
export function formatRoundLine (roundNo, round, status) {
  if (!round || round.messages === 0) return `round ${roundNo}: no simulator reported a message yet (${status.simulators} simulators)`
  const abs = round.absolute ? `, absolute p50 ${formatMs(round.absolute.p50)} p99 ${formatMs(round.absolute.p99)}` : ''
  return `round ${roundNo}: ${round.messages} messages × ${status.simulators} simulators, reached ${round.received}, missing ${round.missing}, ` +
    `relative p50 ${formatMs(round.relative.p50)} p99 ${formatMs(round.relative.p99)} max ${formatMs(round.relative.max)}${abs}` +
    (round.misdelivered ? `, MISDELIVERED ${round.misdelivered}` : '') + (round.duplicates ? `, DUPLICATED ${round.duplicates}` : '') +
    (round.floor ? `; ${formatRoundFloor(round.floor)}` : '') +
    (status.complete ? '' : ' (incomplete: some simulators had not reported every message in time)')
}
