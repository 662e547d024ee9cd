/**
 * Facts about this host, put into every result so a number says where it was taken.
 */
import os from 'node:os'

/** @returns {import('./schema/result-schema.js').HostFacts} */
export function hostFacts () {
  return {
    hostname: os.hostname(),
    platform: os.platform(),
    arch: os.arch(),
    cpus: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    release: os.release(),
    node: process.version
  }
}
