"""A plain WebSocket server on the Python websockets library (Debian python3-websockets, 10.x),
for ioswarm's --protocol websocket interop tests. Configured by environment:

  MODE        json (default): {"id", "sentAt"} with sentAt in epoch ms;
              nested: {"type": "score", "data": {"seq": N, "ts": <epoch seconds>}}, each followed by
              {"type": "heartbeat"}; text: "tick N" (no id); binary: 16 random bytes
  FRAGMENT    1: every message sent as a fragmented message (two frames)
  TOKEN       when set, a client whose ?token= differs is refused: REFUSE=close (default) closes it
              with 1008 "bad token" after the handshake, REFUSE=http answers HTTP 401 instead
  SUBPROTOCOL when set, the only subprotocol the server accepts
  PING_INTERVAL  seconds between the server's pings (websockets' keepalive; default 20); a client
              that does not answer within the same time is closed (1011)

Listens on 127.0.0.1 on a free port, prints {"port": N} on stdout once listening.
GET /emit?count=N sends N messages to every client; GET /count answers {"connected": N, ...}.
Runs until SIGTERM/SIGINT.
"""
import asyncio
import http
import json
import os
import signal
import sys
import time
from urllib.parse import parse_qs, urlparse

import websockets

MODE = os.environ.get('MODE', 'json')
FRAGMENT = os.environ.get('FRAGMENT') == '1'
TOKEN = os.environ.get('TOKEN', '')
REFUSE = os.environ.get('REFUSE', 'close')
SUBPROTOCOL = os.environ.get('SUBPROTOCOL', '')
PING_INTERVAL = float(os.environ.get('PING_INTERVAL', '20'))
clients = set()
state = {'sent': 0, 'received': 0, 'refused': 0}


def token_of(path):
    return parse_qs(urlparse(path).query).get('token', [''])[0]


def messages():
    state['sent'] += 1
    n = state['sent']
    if MODE == 'text':
        return [f'tick {n}']
    if MODE == 'binary':
        return [os.urandom(16)]
    if MODE == 'nested':
        return [json.dumps({'type': 'score', 'data': {'seq': n, 'ts': time.time()}}), json.dumps({'type': 'heartbeat'})]
    return [json.dumps({'id': f'py-{n}', 'sentAt': time.time() * 1000})]


async def send(ws, message):
    if FRAGMENT:
        half = len(message) // 2
        await ws.send([message[:half], message[half:]])
    else:
        await ws.send(message)


async def process_request(path, headers):
    url = urlparse(path)
    if url.path == '/emit':
        count = int(parse_qs(url.query).get('count', ['1'])[0])
        for _ in range(count):
            for message in messages():
                await asyncio.gather(*(send(ws, message) for ws in list(clients)), return_exceptions=True)
        return http.HTTPStatus.OK, [('Content-Type', 'application/json')], json.dumps({'sent': count}).encode()
    if url.path == '/count':
        body = {'connected': len(clients), **state}
        return http.HTTPStatus.OK, [('Content-Type', 'application/json')], json.dumps(body).encode()
    if TOKEN and REFUSE == 'http' and token_of(path) != TOKEN:
        state['refused'] += 1
        return http.HTTPStatus.UNAUTHORIZED, [], b'bad token\n'
    return None


async def handler(ws, path=None):
    if TOKEN and token_of(ws.path) != TOKEN:
        state['refused'] += 1
        await ws.close(1008, 'bad token')
        return
    clients.add(ws)
    try:
        async for _ in ws:
            state['received'] += 1
    except websockets.ConnectionClosed:
        pass
    finally:
        clients.discard(ws)


async def main():
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with websockets.serve(handler, '127.0.0.1', 0, process_request=process_request,
                                subprotocols=[SUBPROTOCOL] if SUBPROTOCOL else None,
                                ping_interval=PING_INTERVAL, ping_timeout=PING_INTERVAL) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(json.dumps({'port': port}), flush=True)
        await stop.wait()


if __name__ == '__main__':
    asyncio.run(main())
    sys.exit(0)
