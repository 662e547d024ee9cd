"""One node of a small chat app behind a load balancer, on python-socketio 5 (Debian
python3-socketio) and aiohttp, sharing Redis with the other nodes through
socketio.AsyncRedisManager (Debian python3-redis): the same protocol as
test/peers/node/chat-node.js.

- On connect the node tells the client its name: event `node` with NODE_NAME.
- `login` with {user} (or a name): acked {ok: true, node}.
- `chat` with an object: relayed to everyone but the sender (skip_sid), on every node, as
  {...payload, user}; acked {ok: true}.
- Every HTTP response, the Engine.IO handshake and the WebSocket upgrade included, carries
  `X-Node: NODE_NAME` and sets the cookie `node=NODE_NAME`.
- GET /count: {node, connected}, the sockets this node holds now.

Env: NODE_NAME, REDIS_URL, CHANNEL (the Redis channel: one per cluster), PING_INTERVAL, PING_TIMEOUT (seconds). Listens on 127.0.0.1 on a
free port, prints {"port": N}; SIGTERM/SIGINT stop it.
"""
import os

import socketio
from aiohttp import web

from listen import serve

NAME = os.environ.get('NODE_NAME') or f'py-{os.getpid()}'
sio = socketio.AsyncServer(async_mode='aiohttp', cors_allowed_origins='*',
                           client_manager=socketio.AsyncRedisManager(os.environ.get('REDIS_URL', 'redis://127.0.0.1:6379'),
                                                                         channel=os.environ.get('CHANNEL', 'socketio')),
                           ping_interval=float(os.environ.get('PING_INTERVAL', '25')),
                           ping_timeout=float(os.environ.get('PING_TIMEOUT', '20')))
app = web.Application()
sio.attach(app)
users = {}  # sid -> user name, for the sockets of this node


async def name_the_node(request, response):
    response.headers['X-Node'] = NAME
    response.headers['Set-Cookie'] = f'node={NAME}; Path=/'

app.on_response_prepare.append(name_the_node)


@sio.event
async def connect(sid, environ, auth=None):
    users[sid] = None
    # Sent before the CONNECT ack: clients hold it until they are connected, as socket.io-client does.
    await sio.emit('node', NAME, to=sid)


@sio.event
async def disconnect(sid):
    users.pop(sid, None)


@sio.event
async def login(sid, payload=None):
    user = payload if isinstance(payload, str) else payload.get('user') if isinstance(payload, dict) else None
    users[sid] = user[:100] if isinstance(user, str) else None
    return {'ok': True, 'node': NAME}


@sio.event
async def chat(sid, payload=None):
    if not isinstance(payload, dict):
        return {'ok': False, 'error': 'chat takes an object'}
    await sio.emit('chat', {**payload, 'user': users.get(sid)}, skip_sid=sid)
    return {'ok': True}


async def count(request):
    return web.json_response({'node': NAME, 'connected': len(users)})

app.router.add_get('/count', count)


if __name__ == '__main__':
    serve(app)
