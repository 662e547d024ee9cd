"""A chat-like app on python-socketio 5 (Debian python3-socketio) and aiohttp, for ioswarm's
tests of identity, rooms and relays against a server not written in JavaScript. The same
protocol as test/peers/node/app-server.js, without its faults:

- AUTH_TOKEN: every namespace refuses a handshake without the token in auth.token, the query
  parameter token or "Authorization: Bearer" (CONNECT_ERROR "unauthorized").
- NAMESPACES (comma-separated, default /); join / leave with {room} or a name, acked
  {ok: true, room}; chat with {room?, ...} relayed unchanged to the room (the sender too) or
  the namespace, acked {ok: true, recipients}; "new message" as socket.io's chat example has it:
  relayed to everyone but the sender as {username, message}, acked {ok: true}.
- POST /broadcast with ioswarm's body (event, room | rooms, namespace, count, intervalMs,
  round, seq, batch, size): messages {id, batch, round, seq, sentAt, room, payload}, answered
  {messages: [{id, event, sentAt, recipients, room}]}.
- GET /count: {connected, byNamespace, refused, rooms} (rooms: per namespace, the size of each
  room a client joined).
- LATE_FIRST=F, LATE_COUNT=L: late joiners on the first namespace (late.py), GET /late.

Listens on 127.0.0.1 on a free port, prints {"port": N}; SIGTERM/SIGINT stop it.
"""
import asyncio
import json
import os
import time
from urllib.parse import parse_qs

import socketio
from aiohttp import web

from late import Late
from listen import serve

NAMESPACES = [ns for ns in os.environ.get('NAMESPACES', '/').split(',') if ns]
AUTH_TOKEN = os.environ.get('AUTH_TOKEN') or None
sio = socketio.AsyncServer(async_mode='aiohttp', cors_allowed_origins='*',
                           ping_interval=float(os.environ.get('PING_INTERVAL', '25')),
                           ping_timeout=float(os.environ.get('PING_TIMEOUT', '20')))
app = web.Application()
sio.attach(app)
connected = {ns: {} for ns in NAMESPACES}  # namespace -> {sid: engine.io sid}
state = {'refused': 0, 'sent': 0}
joined = {ns: set() for ns in NAMESPACES}  # namespace -> the rooms clients have joined
LATE_FIRST = int(os.environ.get('LATE_FIRST') or 0)
late = Late(sio, NAMESPACES[0], LATE_FIRST, int(os.environ.get('LATE_COUNT') or 0)) if LATE_FIRST > 0 else None


def room_of(payload):
    room = payload if isinstance(payload, str) else payload.get('room') if isinstance(payload, dict) else None
    return room if isinstance(room, str) and 0 < len(room) <= 200 else None


def carries_token(environ, auth):
    if not AUTH_TOKEN:
        return True
    query = parse_qs(environ.get('QUERY_STRING', ''))
    bearer = environ.get('HTTP_AUTHORIZATION', '')
    return ((isinstance(auth, dict) and auth.get('token') == AUTH_TOKEN)
            or AUTH_TOKEN in query.get('token', [])
            or bearer == f'Bearer {AUTH_TOKEN}')


def members(ns, room):
    # The manager knows a namespace only once a client has connected to it.
    return len(list(sio.manager.get_participants(ns, room))) if ns in sio.manager.rooms else 0


def handlers(ns):
    async def connect(sid, environ, auth=None):
        if not carries_token(environ, auth):
            state['refused'] += 1
            raise socketio.exceptions.ConnectionRefusedError('unauthorized')
        if late and ns == late.ns:
            await late.admit(sid)
        connected[ns][sid] = sio.manager.eio_sid_from_sid(sid, ns)

    async def disconnect(sid):
        connected[ns].pop(sid, None)
        if late and ns == late.ns:
            await late.gone(sid)

    def room_handler(enter):
        async def handle(sid, payload=None):
            room = room_of(payload)
            if room is None:
                return {'ok': False, 'error': 'room must be a string of 1 to 200 characters'}
            if enter:
                sio.enter_room(sid, room, namespace=ns)
                joined[ns].add(room)
            else:
                sio.leave_room(sid, room, namespace=ns)
            return {'ok': True, 'room': room}
        return handle

    async def chat(sid, payload=None):
        if not isinstance(payload, dict):
            return {'ok': False, 'error': 'chat takes an object {room?, ...}'}
        if 'room' in payload and room_of(payload) is None:
            return {'ok': False, 'error': 'room must be a string of 1 to 200 characters'}
        room = payload.get('room')
        recipients = members(ns, room) if room else len(connected[ns])
        if late and ns == late.ns and late.held(sid, payload):
            return {'ok': True, 'recipients': recipients}
        await sio.emit('chat', payload, room=room, namespace=ns)
        return {'ok': True, 'recipients': recipients}

    async def new_message(sid, message=None):
        # socket.io's chat example: the line wrapped with its sender's name, to everyone but the sender.
        await sio.emit('new message', {'username': f'user-{sid[:6]}', 'message': message}, skip_sid=sid, namespace=ns)
        return {'ok': True}

    sio.on('connect', connect, namespace=ns)
    sio.on('disconnect', disconnect, namespace=ns)
    sio.on('new message', new_message, namespace=ns)
    sio.on('join', room_handler(True), namespace=ns)
    sio.on('leave', room_handler(False), namespace=ns)
    sio.on('chat', chat, namespace=ns)


for namespace in NAMESPACES:
    handlers(namespace)


async def broadcast(request):
    body = await request.json() if request.can_read_body else {}
    targets = body.get('namespace', NAMESPACES)
    targets = [targets] if isinstance(targets, str) else targets
    if any(ns not in NAMESPACES for ns in targets):
        return web.json_response({'error': f'namespace must be one of {", ".join(NAMESPACES)}'}, status=400)
    event, rnd, sent = body.get('event', 'broadcast'), body.get('round', 0), []
    for k in range(body.get('count', 1)):
        if k > 0 and body.get('intervalMs', 0) > 0:
            await asyncio.sleep(body['intervalMs'] / 1000)
        state['sent'] += 1
        seq = body.get('seq', 1) + k
        msg_id = f'{rnd}.{seq}' if rnd > 0 else f'py{state["sent"]}'
        room = body.get('room') or (f'room-{(seq - 1) % body["rooms"]}' if body.get('rooms') else None)
        message = {'id': msg_id, **({'batch': body['batch']} if body.get('batch') else {}),
                   'round': rnd, 'seq': seq, 'sentAt': time.time() * 1000}
        if room:
            message['room'] = room
        message['payload'] = 'x' * body.get('size', 0)
        recipients = 0
        for ns in targets:
            recipients += members(ns, room) if room else len(connected[ns])
            await sio.emit(event, message, room=room, namespace=ns)
        sent.append({'id': msg_id, 'event': event, 'sentAt': message['sentAt'], 'recipients': recipients, **({'room': room} if room else {})})
    return web.json_response({'messages': sent})


async def count(request):
    clients = {eio for sids in connected.values() for eio in sids.values()}
    return web.json_response({'connected': len(clients), 'byNamespace': {ns: len(s) for ns, s in connected.items()},
                              'refused': state['refused'],
                              'rooms': {ns: {room: members(ns, room) for room in rooms} for ns, rooms in joined.items()}})


app.router.add_post('/broadcast', broadcast)
app.router.add_get('/count', count)
if late:
    app.router.add_get('/late', late.report)


if __name__ == '__main__':
    serve(app)
