#!/usr/bin/env node
// The classic entry: `node client.js -c 500 --transport polling` is `ioswarm simulate …`.
import { main } from './bin/cli.js'

await main(['simulate', ...process.argv.slice(2)])
