// The floor for bench/startup.js: a forked Node process that answers the first IPC message,
// as simulator/processes/child.js does before a swarm, and loads nothing else.
process.on('message', () => process.send({ type: 'ioswarm:resized' }, () => process.disconnect()))
