/**
 * A live-score feed behind a login, as a --scenario: each fan connects with a token of its own
 * (from a feeder row when there is one: --feeder fans.csv with a `token` column), subscribes
 * to one match (its room), and listens. The server pushes `score` updates to each match's
 * room; every fan measures them (relative delay, absolute latency, missing), and a fan that
 * gets another match's score counts as misdelivered.
 *
 *   ioswarm serve --port 3000 --auth-token s3cret &
 *   ioswarm simulate --url http://localhost:3000 -c 300 --rooms 3 --event score \
 *     --scenario examples/live-score.js --duration 60s &
 *   ioswarm broadcast --url http://localhost:3000 --token <serve's token> --event score --rooms 3 --rounds 10x1000
 *
 * Without a feeder, every fan uses SCORE_TOKEN (default s3cret). Fans whose token the server
 * refuses are counted as connect errors with the server's reason.
 */

/**
 * Runs at every connection attempt: the handshake's auth payload (Socket.IO v4+).
 * @param {number} i
 * @param {import('ioswarm').HookContext} ctx
 */
export function identity (i, ctx) {
  return { auth: { token: ctx.row?.token ?? process.env.SCORE_TOKEN ?? 's3cret', fan: ctx.i } }
}

/**
 * @param {import('ioswarm').HookSocket} socket
 * @param {import('ioswarm').HookContext} ctx
 */
export async function onConnect (socket, ctx) {
  // The match to follow is the fan's room (--rooms 3: room-0, room-1, room-2).
  await socket.join(ctx.room ?? 'room-0')
}
