/**
 * The groups a command's options are shown in, by `--help` and in docs/options.md, in the
 * order they are shown. Every option row names one (lib/cli-options/define.js). `--help`
 * names the options of a group only (flag names) on the commands its `namedOn` lists ('*':
 * every command), and `--help-all` shows them in full: options few runs of that command need,
 * kept out of the way of those most do, so that a command's help stays readable. A leaf, like
 * define.js.
 */

/** @typedef {typeof OPTION_GROUPS[number]['name']} GroupName */

export const OPTION_GROUPS = Object.freeze(/** @type {const} */ ([
  { name: 'Target', about: 'the server under test: where it is, how it is spoken to, how it is trusted' },
  { name: 'Capacity search', about: 'the service level and the steps the search takes' },
  { name: 'Clients and ramp', about: 'how many clients, how they arrive, how long they stay' },
  {
    name: 'Old and new meanings',
    namedOn: ['run'],
    about: 'spellings of a run\'s clients and length that mean the same in every version: --clients and --duration changed meaning'
  },
  { name: 'Identity and sessions', namedOn: ['run', 'capacity'], about: 'who each client is: auth, query, headers, cookies, login, rooms' },
  { name: 'Traffic', about: 'what is sent: broadcast rounds, the clients\' own emits, scenarios' },
  { name: 'What is measured', about: 'which messages are recorded, how they are matched, in what windows' },
  { name: 'Reference server', namedOn: ['run', 'capacity'], about: 'the socket.io server ioswarm serves, or starts for a run' },
  { name: 'Processes and scale', about: 'simulator processes, workers, the Redis collector, source addresses' },
  { name: 'Hosts', about: 'the hosts of a fleet and how they are reached over ssh' },
  { name: 'Live metrics', namedOn: ['capacity'], about: 'the live dashboard, Prometheus and OTLP while the test runs' },
  { name: 'Output and CI', about: 'what is printed and written, thresholds and CI files' },
  { name: 'Advanced', namedOn: '*', about: 'client internals and memory limits few runs need to change' }
]))

/** The names of the groups, in the order they are shown. */
export const GROUP_NAMES = Object.freeze(OPTION_GROUPS.map((g) => g.name))
