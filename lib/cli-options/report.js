/**
 * Options of `ioswarm report` that no other command has.
 */
import { defineOptions } from './define.js'

export const REPORT_OPTIONS = defineOptions([
  {
    name: 'compare',
    type: 'boolean',
    default: false,
    commands: ['report'],
    describe: 'one page comparing the runs: average and p99 delay per round, each distribution of each file a series',
    parse: Boolean
  },
  { name: 'label', type: 'string', array: true, commands: ['report'], describe: 'with --compare, a label per file (default: the run names)' }
])
