/**
 * Every command of the CLI: how it is typed and its line of `ioswarm --help`. The command
 * modules (<feature>/cli.js) take theirs from here, and bin/command-modules.js lists the
 * commands from here without loading any of them: `ioswarm --help` and `--version` load no
 * command's library (a process loads only what it uses).
 */

/** @typedef {{ command: string, describe: string }} CommandLine */

export const COMMAND_LINES = Object.freeze({
  run: { command: 'run', describe: 'Run a whole test: server (or --target), simulators, broadcast rounds, results and report' },
  capacity: { command: 'capacity', describe: 'Find how many clients the server holds at a service level (--slo): grow the swarm step by step, then narrow' },
  simulate: { command: 'simulate', describe: 'Open N socket.io clients that listen for broadcasts and measure each message\'s delivery' },
  serve: { command: 'serve', describe: 'Run the reference socket.io server under test (relays broadcasts to all clients)' },
  broadcast: { command: 'broadcast', describe: 'Fire rounds of broadcast messages through the app server' },
  report: {
    command: 'report <results..>',
    describe: 'Write an HTML report from a result (run, simulate --json, capacity; several side by side with --compare), print a summary, check thresholds'
  },
  fleet: { command: 'fleet', describe: 'Simulators on many hosts: pm2 on each, driven over ssh (up, exec, status, down)' },
  probe: { command: 'probe', describe: 'Sample a server process from outside (/proc) and report to the collector: for servers not written in Node' },
  record: { command: 'record', describe: 'Turn a recorded browser session (a HAR file) into a scenario module for --scenario' }
})

/** The top-level help's texts, handed to yargs by bin/cli.js and rendered without it by bin/top-help.js. */
export const SCRIPT = 'ioswarm'
export const USAGE =
  '$0 <command> [options]\n\nLoad-test a Socket.IO server with a swarm of real clients and measure how long each broadcast takes to reach all of them.'
export const CONFIG_DESCRIBE = 'JSON or YAML file of options (flag names as keys)'
export const EPILOG =
  'Exit codes: 0 ok, 1 runtime failure, 2 bad usage, 3 a --assert threshold failed (capacity: the SLO failed at --start), 4 capacity inconclusive.\nDocs: README.md and docs/ (every option: docs/options.md)'

/**
 * The width yargs wraps the help at: the terminal's, at most 110 columns; 100 when not a terminal.
 * @param {number | undefined} columns process.stdout.columns
 */
export function helpWidth (columns) {
  return Math.min(110, columns || 100)
}
