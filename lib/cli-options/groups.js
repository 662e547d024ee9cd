/**
 * The groups a command's options are shown in, by `--help` and in docs/options.md, in the
 * order they are shown. Every option row names one (lib/cli-options/define.js); a group
 * marked `brief: false` is named only (flag names) in `--help`, and shown in full by
 * `--help-all`: options few runs need, kept out of the way of those most do. A leaf, like
 * define.js.
 */

/** @typedef {typeof OPTION_GROUPS[number]['name']} GroupName */

export const OPTION_GROUPS = Object.freeze(/** @type {const} */ ([
  { name: 'Target', brief: true, about: 'the server under test: where it is, how it is spoken to, how it is trusted' },
  { name: 'Capacity search', brief: true, about: 'the service level and the steps the search takes' },
  { name: 'Clients and ramp', brief: true, about: 'how many clients, how they arrive, how long they stay' },
  { name: 'Identity and sessions', brief: true, about: 'who each client is: auth, query, headers, cookies, login, rooms' },
  { name: 'Traffic', brief: true, about: 'what is sent: broadcast rounds, the clients\' own emits, scenarios' },
  { name: 'What is measured', brief: true, about: 'which messages are recorded, how they are matched, in what windows' },
  { name: 'Reference server', brief: true, about: 'the socket.io server ioswarm serves, or starts for a run' },
  { name: 'Processes and scale', brief: true, about: 'simulator processes, workers, the Redis collector, source addresses' },
  { name: 'Hosts', brief: true, about: 'the hosts of a fleet and how they are reached over ssh' },
  { name: 'Live metrics', brief: true, about: 'the live dashboard, Prometheus and OTLP while the test runs' },
  { name: 'Output and CI', brief: true, about: 'what is printed and written, thresholds and CI files' },
  { name: 'Advanced', brief: false, about: 'client internals and memory limits few runs need to change' }
]))

/** The names of the groups, in the order they are shown. */
export const GROUP_NAMES = Object.freeze(OPTION_GROUPS.map((g) => g.name))
