/**
 * Options of `ioswarm fleet …` (pm2 on every host over ssh). `fleet up` also takes every
 * simulator option marked passOn, and hands them to the hosts' simulators (index.js).
 */
import { invalidOption } from '../../errors.js'
import { parseDurationMs, parseInteger } from '../../values/parsers.js'
import { VERSION } from '../../version.js'
import { defineOptions } from '../define.js'

/** The fleet commands that work on hosts over ssh. */
const HOST_COMMANDS = ['fleet up', 'fleet exec', 'fleet down']

export const FLEET_OPTIONS = defineOptions([
  {
    name: 'hosts-file',
    group: 'Hosts',
    alias: 'f',
    type: 'string',
    commands: HOST_COMMANDS,
    describe: 'File of hosts: one [user@]host[:port] per line, # comments'
  },
  { name: 'hosts', group: 'Hosts', type: 'string', commands: HOST_COMMANDS, describe: 'Hosts, comma-separated: a,deploy@b,c:2222' },
  { name: 'ssh', group: 'Hosts', type: 'string', default: 'ssh', commands: HOST_COMMANDS, describe: 'ssh program to run (its config, keys and agent apply)' },
  {
    name: 'ssh-option',
    group: 'Hosts',
    alias: 'o',
    type: 'string',
    array: true,
    commands: HOST_COMMANDS,
    describe: 'Extra ssh -o option, repeatable: -o StrictHostKeyChecking=accept-new'
  },
  {
    name: 'ssh-connect-timeout',
    group: 'Hosts',
    type: 'string',
    default: '10s',
    commands: HOST_COMMANDS,
    describe: 'ssh ConnectTimeout per host (at least 1s)',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'connect-timeout',
    group: 'Hosts',
    type: 'string',
    commands: HOST_COMMANDS,
    describe: 'Refused until the next minor version: it was ssh\'s ConnectTimeout here, now --ssh-connect-timeout',
    details: 'On run and capacity --connect-timeout is how long clients may take past the ramp; on the fleet commands it was ssh\'s ' +
      'ConnectTimeout. One word keeps one meaning, so the fleet commands call theirs --ssh-connect-timeout and refuse the old spelling for now.',
    parse: (v, flag) => {
      if (v === undefined || v === null) return null
      throw invalidOption(flag, `${v} has two readings: ssh's ConnectTimeout per host (what it meant on the fleet commands: --ssh-connect-timeout ${v}), ` +
        'or how long clients may take past the ramp (what it means on run and capacity). Until the next minor version it is refused here: say --ssh-connect-timeout')
    }
  },
  {
    name: 'parallel',
    group: 'Hosts',
    type: 'string',
    default: 32,
    commands: HOST_COMMANDS,
    describe: 'Hosts worked on at once',
    parse: (v, flag) => parseInteger(v, flag, { min: 1, max: 1000 })
  },
  {
    name: 'dry-run',
    group: 'Hosts',
    type: 'boolean',
    default: false,
    commands: HOST_COMMANDS,
    describe: 'Print what would run where (one line per host and command) and run nothing',
    parse: Boolean
  },
  {
    name: 'apps',
    group: 'Hosts',
    type: 'string',
    default: 'sim',
    choices: ['sim', 'server', 'sim,server'],
    commands: ['fleet up'],
    describe: 'pm2 apps to start: simulators, the reference server, or both'
  },
  {
    name: 'ioswarm-version',
    group: 'Hosts',
    type: 'string',
    commands: ['fleet up'],
    describe: `Install this version of ioswarm from the npm registry on the hosts (e.g. ${VERSION}) instead of this checkout`
  },
  {
    name: 'from',
    group: 'Hosts',
    type: 'string',
    commands: ['fleet up'],
    describe: 'Install from this npm spec on the hosts instead of this checkout: a git URL, or a tarball URL or path on the hosts'
  }
])
