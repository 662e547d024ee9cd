/**
 * Options of `ioswarm report`, and the CI outputs that `run` and `capacity` write too.
 */
import { defineOptions } from '../define.js'

export const REPORT_OPTIONS = defineOptions([
  {
    name: 'compare',
    group: 'Output and CI',
    type: 'boolean',
    default: false,
    commands: ['report'],
    describe: 'one page comparing the runs: average and p99 delay per round, each distribution of each file a series',
    parse: Boolean
  },
  {
    name: 'label',
    group: 'Output and CI',
    type: 'string',
    array: true,
    commands: ['report'],
    describe: 'with --compare, a label per file (default: the run names)'
  },
  {
    name: 'junit',
    group: 'Output and CI',
    type: 'string',
    commands: ['run', 'capacity', 'report'],
    describe: {
      run: 'Write the --assert verdicts to this file as JUnit XML',
      capacity: 'Write the verdicts to this file as JUnit XML: the search\'s outcome, and each --slo at the step that decided the answer',
      report: 'Write the threshold verdicts to this file as JUnit XML'
    },
    details: {
      run: 'Write the --assert verdicts to this file as JUnit XML (one testcase per threshold, a failure with the measured value), for CI test reporters',
      report: 'Write the threshold verdicts (--assert, else those the run recorded; a capacity result\'s SLO verdicts) to this file as JUnit XML'
    }
  },
  {
    name: 'summary-json',
    group: 'Output and CI',
    type: 'string',
    commands: ['run', 'capacity', 'report'],
    describe: 'Write a small machine-readable summary to this file',
    details: 'Write a small machine-readable summary to this file: per result its kind, clients, deliveries, worst delays, verdicts (or the capacity answer), and the exit code'
  }
])
