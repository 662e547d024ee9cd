/**
 * Test helper, loaded into a child process with `--import` (NODE_OPTIONS): registers a
 * module resolve hook that appends the URL of every module the process resolves to the file
 * named by IOSWARM_TEST_MODULE_LOG, one per line. A test reads the file to know which
 * packages a real ioswarm process loaded (issue 26: a light process).
 */
import { register } from 'node:module'

register('./module-log-hooks.js', import.meta.url)
