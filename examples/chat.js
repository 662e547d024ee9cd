/**
 * A chat with rooms, as a --scenario: each client joins its room (--rooms R puts client i in
 * room-{i mod R}), then says a line every few seconds and waits for the server's ack. The
 * server relays each line to the room, and every client measures the lines it receives like a
 * broadcast: relative delay, absolute latency from the line's sentAt, missing, misdelivered
 * (a line from another room), duplicated.
 *
 *   ioswarm serve --port 3000 &
 *   ioswarm simulate --url http://localhost:3000 -c 200 --rooms 20 --event chat \
 *     --scenario examples/chat.js --duration 60s
 *
 * or the whole test in one command (reference server, simulators, report):
 *
 *   ioswarm run --total-clients 400 --rooms 20 --event chat --scenario examples/chat.js --rounds 1x1000
 *
 * The reference server relays `chat` to `room` with an ack (`ioswarm serve --relay-event`);
 * for your own app, change the event names and payloads below to what its clients send.
 */

/** Seconds between two lines of one client, on average. */
const LINE_EVERY_MS = Number(process.env.CHAT_LINE_EVERY_MS ?? 3000)

/**
 * @param {import('ioswarm').HookSocket} socket
 * @param {import('ioswarm').HookContext} ctx
 */
export async function onConnect (socket, ctx) {
  // Counts this client in its room from the server's ack on: room lines are expected by it.
  await socket.join(ctx.room)
  let n = 0
  socket.every(LINE_EVERY_MS, async () => {
    n++
    // An id and a send time: receivers tell lines apart by id, and time them from sentAt.
    await socket.emitWithAck('chat', { room: ctx.room, id: `${ctx.i}.${n}`, sentAt: Date.now(), text: `line ${n} from user ${ctx.i}` })
  })
}
