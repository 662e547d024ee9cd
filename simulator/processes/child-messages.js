/**
 * The `type` of every message between a simulator child (child.js) and its parent (spawn.js),
 * in a module of its own: the child imports these names without the parent's side
 * (lib/child.js, node:child_process).
 */
export const CHILD_MESSAGE = Object.freeze({
  SIMULATE: 'ioswarm:simulate',
  STOP: 'ioswarm:stop',
  RESIZE: 'ioswarm:resize',
  RESIZED: 'ioswarm:resized',
  MESSAGE: 'ioswarm:message',
  RESULT: 'ioswarm:result',
  ERROR: 'ioswarm:error'
})
