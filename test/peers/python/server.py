"""A python-socketio 5 server on aiohttp, for ioswarm's interop tests (Debian python3-socketio).

Listens on 127.0.0.1 on a free port (or PORT), prints {"port": N} on stdout once listening,
and broadcasts a `news` event {id, sentAt} to every client when POST /emit?count=N is called.
GET /count answers {"connected": N}: the clients the server itself counts.
A `move` {id} is answered the way older apps answer, with events instead of an ack: a `state`
for another id first, then `state` {id, ok} to the sender only; a `stall` is never answered.
Runs until SIGTERM/SIGINT.
"""
import json
import os
import time

import socketio
from aiohttp import web

from listen import serve

NAMESPACES = [ns for ns in os.environ.get('NAMESPACES', '/').split(',') if ns]
sio = socketio.AsyncServer(async_mode='aiohttp', cors_allowed_origins='*',
                           ping_interval=float(os.environ.get('PING_INTERVAL', '25')),
                           ping_timeout=float(os.environ.get('PING_TIMEOUT', '20')))
app = web.Application()
sio.attach(app)
connected = {ns: set() for ns in NAMESPACES}
sent = 0


def handlers(ns):
    async def connect(sid, environ, auth=None):
        connected[ns].add(sid)

    async def disconnect(sid):
        connected[ns].discard(sid)

    async def move(sid, data=None):
        move_id = data.get('id') if isinstance(data, dict) else None
        await sio.emit('state', {'id': 'someone-else', 'ok': True}, to=sid, namespace=ns)
        await sio.emit('state', {'id': move_id, 'ok': True}, to=sid, namespace=ns)

    sio.on('connect', connect, namespace=ns)
    sio.on('disconnect', disconnect, namespace=ns)
    sio.on('move', move, namespace=ns)


for ns in NAMESPACES:
    handlers(ns)


async def emit(request):
    global sent
    count = int(request.query.get('count', '1'))
    event = request.query.get('event', 'news')
    for _ in range(count):
        sent += 1
        for ns in NAMESPACES:
            await sio.emit(event, {'id': f'py-{sent}', 'sentAt': time.time() * 1000}, namespace=ns)
    return web.json_response({'sent': count})


async def count(request):
    return web.json_response({'connected': sum(len(s) for s in connected.values()), 'byNamespace': {ns: len(s) for ns, s in connected.items()}})


app.router.add_post('/emit', emit)
app.router.add_get('/count', count)


if __name__ == '__main__':
    serve(app)
