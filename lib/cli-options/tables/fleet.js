/**
 * Options of `ioswarm fleet …` (pm2 on every host over ssh). `fleet up` also takes every
 * simulator option marked passOn, and hands them to the hosts' simulators (index.js).
 */
import { parseDurationMs, parseInteger } from '../../values/parsers.js'
import { VERSION } from '../../version.js'
import { defineOptions } from '../define.js'

/** The fleet commands that work on hosts over ssh. */
const HOST_COMMANDS = ['fleet up', 'fleet exec', 'fleet down']

export const FLEET_OPTIONS = defineOptions([
  { name: 'hosts-file', group: 'Hosts', alias: 'f', type: 'string', commands: HOST_COMMANDS, describe: 'File of hosts: one [user@]host[:port] per line, # comments' },
  { name: 'hosts', group: 'Hosts', type: 'string', commands: HOST_COMMANDS, describe: 'Hosts, comma-separated: a,deploy@b,c:2222' },
  { name: 'ssh', group: 'Hosts', type: 'string', default: 'ssh', commands: HOST_COMMANDS, describe: 'ssh program to run (its config, keys and agent apply)' },
  { name: 'ssh-option', group: 'Hosts', alias: 'o', type: 'string', array: true, commands: HOST_COMMANDS, describe: 'Extra ssh -o option, repeatable: -o StrictHostKeyChecking=accept-new' },
  {
    name: 'connect-timeout',
    group: 'Hosts',
    type: 'string',
    default: '10s',
    commands: HOST_COMMANDS,
    describe: 'ssh ConnectTimeout per host (at least 1s)',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  { name: 'parallel', group: 'Hosts', type: 'string', default: 32, commands: HOST_COMMANDS, describe: 'Hosts worked on at once', parse: (v, flag) => parseInteger(v, flag, { min: 1, max: 1000 }) },
  { name: 'dry-run', group: 'Hosts', type: 'boolean', default: false, commands: HOST_COMMANDS, describe: 'Print what would run where (one line per host and command) and run nothing', parse: Boolean },
  {
    name: 'apps',
    group: 'Hosts',
    type: 'string',
    default: 'sim',
    choices: ['sim', 'server', 'sim,server'],
    commands: ['fleet up'],
    describe: 'pm2 apps to start: simulators, the reference server, or both'
  },
  { name: 'ioswarm-version', group: 'Hosts', type: 'string', commands: ['fleet up'], describe: `Install this version of ioswarm from the npm registry on the hosts (e.g. ${VERSION}) instead of this checkout` },
  { name: 'from', group: 'Hosts', type: 'string', commands: ['fleet up'], describe: 'Install from this npm spec on the hosts instead of this checkout: a git URL, or a tarball URL or path on the hosts' }
])
