/**
 * Result shapes, as JSDoc types checked by tsc: what a simulator reports
 * (simulator-schema.js), its time windows (window-schema.js), what `ioswarm run` writes to
 * result.json (run-schema.js); reports are built from them. The one entry the code imports
 * the types from. Bump SCHEMA_VERSION on any change that breaks a reader.
 */

export const SCHEMA_VERSION = 1
export { HEALTH_SUMMARY_FROM, MERGE_RULES } from './simulator-schema.js'
export { WINDOW_MERGE_RULES } from './window-schema.js'

/**
 * @typedef {import('./simulator-schema.js').DelaySummary} DelaySummary
 * @typedef {import('./simulator-schema.js').ProcessSample} ProcessSample
 * @typedef {import('./simulator-schema.js').EncodedDelay} EncodedDelay
 * @typedef {import('./simulator-schema.js').HostFacts} HostFacts
 * @typedef {import('./simulator-schema.js').ClockInfo} ClockInfo
 * @typedef {import('./simulator-schema.js').FloorReport} FloorReport
 * @typedef {import('./simulator-schema.js').MessageReport} MessageReport
 * @typedef {import('./simulator-schema.js').MessageRollup} MessageRollup
 * @typedef {import('./simulator-schema.js').RecorderInfo} RecorderInfo
 * @typedef {import('./simulator-schema.js').TimelinePoint} TimelinePoint
 * @typedef {import('./simulator-schema.js').Storm} Storm
 * @typedef {import('./simulator-schema.js').ClientCounts} ClientCounts
 * @typedef {import('./simulator-schema.js').HealthSummary} HealthSummary
 * @typedef {import('./simulator-schema.js').MergeRule} MergeRule
 * @typedef {import('./simulator-schema.js').SimMeasures} SimMeasures
 * @typedef {import('./simulator-schema.js').SteeringAction} SteeringAction
 * @typedef {import('./simulator-schema.js').CustomReport} CustomReport
 * @typedef {import('./simulator-schema.js').LoginReport} LoginReport
 * @typedef {import('./simulator-schema.js').RampGuardReport} RampGuardReport
 * @typedef {import('./simulator-schema.js').ServerInfo} ServerInfo
 * @typedef {import('./simulator-schema.js').SimResult} SimResult
 * @typedef {import('./simulator-schema.js').NodeRow} NodeRow
 * @typedef {import('./simulator-schema.js').NodeReport} NodeReport
 * @typedef {import('./simulator-schema.js').PhaseStep} PhaseStep
 * @typedef {import('./simulator-schema.js').ScenarioReport} ScenarioReport
 * @typedef {import('./simulator-schema.js').NamespaceCounts} NamespaceCounts
 * @typedef {import('./window-schema.js').WindowReport} WindowReport
 * @typedef {import('./window-schema.js').WindowResult} WindowResult
 * @typedef {import('./window-schema.js').ClientFigures} ClientFigures
 * @typedef {import('./window-schema.js').BucketCounts} BucketCounts
 * @typedef {import('./window-schema.js').SecondFigures} SecondFigures
 * @typedef {import('./run-schema.js').RunMessage} RunMessage
 * @typedef {import('./run-schema.js').MessageFloor} MessageFloor
 * @typedef {import('./run-schema.js').RoundFloor} RoundFloor
 * @typedef {import('./run-schema.js').RoundResult} RoundResult
 * @typedef {import('./run-schema.js').SimulatorSummary} SimulatorSummary
 * @typedef {import('./run-schema.js').AppCounts} AppCounts
 * @typedef {import('./run-schema.js').ServerSample} ServerSample
 * @typedef {import('./run-schema.js').PublishSummary} PublishSummary
 * @typedef {import('./run-schema.js').DistributionResult} DistributionResult
 * @typedef {import('./run-schema.js').LineRollup} LineRollup
 * @typedef {import('./run-schema.js').IpcErrors} IpcErrors
 * @typedef {import('./run-schema.js').ReportsRefused} ReportsRefused
 * @typedef {import('./run-schema.js').DeliveryRow} DeliveryRow
 * @typedef {import('./run-schema.js').DeliveryBreakdown} DeliveryBreakdown
 * @typedef {import('./run-schema.js').ThresholdVerdict} ThresholdVerdict
 * @typedef {import('./run-schema.js').RunResult} RunResult
 */
