"""The recorder's chat app (test/recorder/recorded-app.js) on python-socketio 5 and aiohttp, for
the test that records a browser session against a server not written in JavaScript and replays
it: the same page (PAGE, from the test, with socket.io-client's browser bundle at BUNDLE), the
same login, /chat namespace, room, acked emits, binary avatar and typing notice, and the same
ledger, read over HTTP:

- POST /login {user, password} (the password is pw-<User>-2026): a session cookie sid and
  {ok: true, token}; /chat refuses a handshake without that cookie and auth {token, user}.
- join {room} (acked {ok: true}), chat {room, text} relayed to the rest of the room (acked
  {ok: true, id}), avatar {name, data: binary} (acked {stored: length}), and any other event.
- GET /ledger: each /chat socket in connect order, {sid, user, events: [{event, shape, text?}],
  joins}; a payload's shape is its keys and their types as JavaScript's typeof names them
  (bytes: "binary"), as recorded-app.js writes it.

Listens on 127.0.0.1 on a free port, prints {"port": N}; SIGTERM/SIGINT stop it.
"""
import os
import re
import secrets

import socketio
from aiohttp import web

from listen import serve

NSP = '/chat'
PAGE = os.environ['PAGE']
with open(os.environ['BUNDLE'], 'rb') as f:
    BUNDLE = f.read()
sio = socketio.AsyncServer(async_mode='aiohttp', cors_allowed_origins='*')
app = web.Application()
sio.attach(app)
sessions = {}  # cookie sid -> {user, token}
ledger = {}  # socket sid -> {sid, user, events, joins}, in connect order
users = {}  # socket sid -> user
relayed = [0]


def shape_of(value):
    if isinstance(value, (bytes, bytearray)):
        return 'binary'
    if isinstance(value, (list, tuple)):
        return [shape_of(v) for v in value]
    if isinstance(value, dict):
        return {k: shape_of(value[k]) for k in sorted(value)}
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, (int, float)):
        return 'number'
    if isinstance(value, str):
        return 'string'
    return 'object'  # None, as typeof null


def note(sid, event, args):
    entry = ledger.get(sid)
    if entry is None:
        return
    first = args[0] if args else None
    text = first.get('text') if isinstance(first, dict) else None
    entry['events'].append({'event': event, 'shape': shape_of(list(args)), **({'text': text} if isinstance(text, str) else {})})


@sio.on('connect', namespace=NSP)
async def connect(sid, environ, auth=None):
    cookie = re.search(r'(?:^|;\s*)sid=([^;]+)', environ.get('HTTP_COOKIE', ''))
    session = sessions.get(cookie.group(1)) if cookie else None
    if (not session or not isinstance(auth, dict)
            or auth.get('token') != session['token'] or auth.get('user') != session['user']):
        raise socketio.exceptions.ConnectionRefusedError('not logged in')
    users[sid] = session['user']
    ledger[sid] = {'sid': sid, 'user': session['user'], 'events': [], 'joins': []}


@sio.on('join', namespace=NSP)
async def join(sid, payload=None):
    note(sid, 'join', [payload])
    room = payload.get('room') if isinstance(payload, dict) else None
    if not isinstance(room, str):
        return {'ok': False}
    sio.enter_room(sid, room, namespace=NSP)
    ledger[sid]['joins'].append(room)
    return {'ok': True}


@sio.on('chat', namespace=NSP)
async def chat(sid, payload=None):
    note(sid, 'chat', [payload])
    relayed[0] += 1
    line_id = f'm-{relayed[0]}'
    room = payload.get('room') if isinstance(payload, dict) else None
    text = payload.get('text') if isinstance(payload, dict) else None
    await sio.emit('chat', {'id': line_id, 'room': room, 'from': users.get(sid), 'text': text}, room=room, skip_sid=sid, namespace=NSP)
    return {'ok': True, 'id': line_id}


@sio.on('avatar', namespace=NSP)
async def avatar(sid, payload=None):
    note(sid, 'avatar', [payload])
    data = payload.get('data') if isinstance(payload, dict) else None
    return {'stored': len(data) if isinstance(data, (bytes, bytearray)) else 0}


@sio.on('*', namespace=NSP)
async def any_event(event, sid, *args):
    note(sid, event, args)


async def page(request):
    return web.Response(text=PAGE, content_type='text/html')


async def bundle(request):
    return web.Response(body=BUNDLE, content_type='application/javascript')


async def login(request):
    body = await request.json() if request.can_read_body else {}
    user, password = body.get('user'), body.get('password')
    if not isinstance(user, str) or not user or password != f'pw-{user[0].upper()}{user[1:]}-2026':
        return web.json_response({}, status=401)
    cookie, token = secrets.token_hex(12), secrets.token_urlsafe(24)
    sessions[cookie] = {'user': user, 'token': token}
    res = web.json_response({'ok': True, 'token': token})
    res.headers['Set-Cookie'] = f'sid={cookie}; Path=/; HttpOnly'
    return res


async def read_ledger(request):
    return web.json_response(list(ledger.values()))


app.router.add_get('/', page)
app.router.add_get('/socket.io.js', bundle)
app.router.add_post('/login', login)
app.router.add_get('/ledger', read_ledger)


if __name__ == '__main__':
    serve(app)
