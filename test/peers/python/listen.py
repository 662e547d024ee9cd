"""What both python peers do to run: listen on 127.0.0.1 (a free port, or PORT), print
{"port": N} on stdout once listening, and run until SIGTERM/SIGINT."""
import asyncio
import json
import os
import signal
import sys

from aiohttp import web


async def _serve(app):
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, '127.0.0.1', int(os.environ.get('PORT', '0')))
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(json.dumps({'port': port}), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


def serve(app):
    """Runs the aiohttp app until a signal, then exits 0."""
    asyncio.run(_serve(app))
    sys.exit(0)
