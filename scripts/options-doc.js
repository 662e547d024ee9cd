/**
 * The text of docs/options.md: the options tables (lib/cli-options/reference.js), and the
 * threshold grammar --assert and --slo read (results/), which lib/ cannot import.
 */
import { OPTIONS } from '../lib/cli-options/index.js'
import { optionsReference } from '../lib/cli-options/reference.js'
import { thresholdHelp } from '../results/index.js'

/** docs/options.md as the tables write it now. */
export function optionsDocument () {
  return optionsReference(OPTIONS, [{ id: 'thresholds', title: 'Thresholds: --assert and --slo', text: thresholdHelp() }])
}
