/**
 * A pub/sub server other people wrote that publishes by HTTP: nchan on nginx (Debian's
 * libnginx-mod-nchan), on loopback. `POST /pub/CHANNEL` publishes the request's body to the
 * channel (201 with subscribers, 202 without); `/sub/CHANNEL` subscribes over WebSocket, `/sse/CHANNEL`
 * as an EventSource (Server-Sent Events: each message an event with nchan's message id as its
 * `id:`, resumed from a `Last-Event-ID`), `/sse-brief/CHANNEL` the same with each stream ended
 * by nchan after a second, `/sse-by-query?channel=CHANNEL` the channel named in the query. The
 * nginx master runs in the foreground with its own prefix and is stopped by its pid when the
 * test ends. Without nginx or the module the test skips with a loud reason, except under
 * CI=true, where it fails (.ci/run installs them).
 */
import { constants } from 'node:fs'
import { NGINX, hasTool, nginxHttpPrelude, runNginx, tempDir } from './balancer.js'
import { onClosedPort } from './ports.js'

export const NCHAN_MODULE = '/usr/lib/nginx/modules/ngx_nchan_module.so'

/**
 * @param {import('node:test').TestContext} t
 * @returns {Promise<{ http: string, ws: string, pid: number } | null>} its URLs; null after skipping the test
 */
export async function startNchan (t) {
  if (!hasTool(t, NGINX, 'nginx-light') || !hasTool(t, NCHAN_MODULE, 'libnginx-mod-nchan', constants.R_OK)) return null
  const dir = tempDir(t, 'nchan')
  // nginx cannot listen on port 0 and say which port it got: one nobody listened on, another if it was taken meanwhile
  // (ports.js).
  return onClosedPort(async (port) => {
    const config = `load_module ${NCHAN_MODULE};
worker_processes 1;
events { worker_connections 4096; }
http {
${nginxHttpPrelude(dir)}
  server {
    listen 127.0.0.1:${port};
    location ~ ^/pub/([\\w-]+)$ { nchan_publisher; nchan_channel_id $1; }
    location ~ ^/sub/([\\w-]+)$ { nchan_subscriber websocket; nchan_channel_id $1; nchan_subscriber_first_message newest; }
    location ~ ^/sse/([\\w-]+)$ { nchan_subscriber eventsource; nchan_channel_id $1; nchan_subscriber_first_message newest; }
    location ~ ^/sse-brief/([\\w-]+)$ { nchan_subscriber eventsource; nchan_channel_id $1; nchan_subscriber_first_message newest; nchan_subscriber_timeout 1s; }
    location = /sse-by-query { nchan_subscriber eventsource; nchan_channel_id $arg_channel; nchan_subscriber_first_message newest; }
  }
}
`
    const pid = await runNginx(t, dir, config, port)
    return { http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}`, pid }
  })
}
