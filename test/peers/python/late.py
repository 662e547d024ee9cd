"""Late joiners, for ioswarm's test that a client that connected after a message was sent does
not expect it (test/interop/late-joiners.test.js): a server that takes a message's send time
at once and delivers it later, while new clients connect in the gap. The server forces the
order, never timing, on one namespace (LATE_FIRST=F, LATE_COUNT=L in the app's environment):

- Past F open clients, a connect waits until the gate opens (a client that leaves lets the
  next one in: the swarm's first look at the server is one, briefly).
- Once the F first clients have each sent a chat line (so each knew it was connected), the next
  line one of them sends, with its sentAt after that moment, is held, and a `tick`
  {id: 'late-tick', sentAt} is stamped; 20 ms later the gate opens; once L late clients have
  connected and each sent a line, the held line is relayed and the tick broadcast, both to
  every client of the namespace (the sender too).
- GET /late: {line, tick} (their ids) once both were sent, else {}.
"""
import asyncio
import time

from aiohttp import web

WAIT_S = 30


class Late:
    def __init__(self, sio, namespace, first, count):
        self.sio, self.ns, self.first_n, self.count = sio, namespace, first, count
        self.gate = asyncio.Condition()
        self.open = False
        self.admitted, self.first, self.late, self.spoke = set(), set(), [], set()
        self.all_spoke_at = 0
        self.task = None
        self.sent = {}

    async def admit(self, sid):
        """Waits at the gate, then counts sid among the first clients or the late ones."""
        async with self.gate:
            await asyncio.wait_for(self.gate.wait_for(lambda: self.open or len(self.admitted) < self.first_n), WAIT_S)
            self.admitted.add(sid)
            if self.open:
                self.late.append(sid)
            else:
                self.first.add(sid)

    async def gone(self, sid):
        async with self.gate:
            self.admitted.discard(sid)
            self.first.discard(sid)
            self.gate.notify_all()

    def held(self, sid, line):
        """A chat line from sid: True when it is the line held (sent later by send_late)."""
        self.spoke.add(sid)
        if not self.all_spoke_at and len(self.first) == self.first_n and self.first <= self.spoke:
            self.all_spoke_at = time.time() * 1000
        sent_at = line.get('sentAt')
        if self.task or not self.all_spoke_at or sid not in self.first or not isinstance(sent_at, (int, float)) or sent_at <= self.all_spoke_at:
            return False
        self.task = asyncio.get_running_loop().create_task(self.send_late(line))
        return True

    async def send_late(self, line):
        tick = {'id': 'late-tick', 'sentAt': time.time() * 1000}
        # Clearly after both sends on any clock's millisecond, before anyone else connects.
        await asyncio.sleep(0.02)
        async with self.gate:
            self.open = True
            self.gate.notify_all()
        deadline = time.monotonic() + WAIT_S
        while not (len(self.late) >= self.count and all(s in self.spoke for s in self.late[:self.count])):
            if time.monotonic() > deadline:
                return
            await asyncio.sleep(0.01)
        await self.sio.emit('chat', line, namespace=self.ns)
        await self.sio.emit('tick', tick, namespace=self.ns)
        self.sent = {'line': line.get('id'), 'tick': tick['id']}

    async def report(self, request):
        return web.json_response(self.sent)
