import { test } from 'node:test'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { BIN, runCli } from '../helpers/cli.js'
import { moduleLogEnv, readModuleLog } from '../helpers/modules-loaded.js'

/** The folders whose cli.js and libraries a command loads when it runs (and lib/'s Redis code), never for --help. */
const COMMAND_FOLDERS = ['runner/', 'simulator/', 'server/', 'broadcaster/', 'results/', 'infra/', 'lib/redis.js', 'lib/schema/collector-keys.js']
const COMMAND_PACKAGES = ['socket.io', 'socket.io-client', 'ioredis', 'prom-client', 'pm2', 'ws', 'undici', 'hdr-histogram-js', 'yaml', '@opentelemetry/api']

/**
 * Runs the real binary with the module log and returns its output and what it loaded.
 * @param {import('node:test').TestContext} t
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, nodeArgs?: string[] }} [spec] nodeArgs: before the script
 */
async function loadedByCli (t, args, { env = {}, nodeArgs = [] } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ioswarm-cli-modules-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const log = path.join(dir, 'modules.log')
  const run = await runCli(t, [...nodeArgs, 'bin/ioswarm.js', ...args], { env: { ...env, ...moduleLogEnv(log) } })
  return { ...run, ...readModuleLog(log) }
}

/**
 * Node's arguments that make process.stdout report a terminal this wide (a pipe has no columns: yargs then wraps at 100).
 * @param {number} columns
 */
function columnsArgs (columns) {
  return ['--import', `data:text/javascript,process.stdout.columns=${columns}`]
}

test('ioswarm --help and --version load no command: every command listed, none of their libraries', async (t) => {
  // Given twice, --help goes through yargs (its help renderer loaded, still no command).
  const help = await loadedByCli(t, ['--help', '--help'], { env: { LC_ALL: 'en_US.UTF-8' } })
  assert.equal(help.code, 0, help.stderr)
  for (const name of ['run', 'capacity', 'simulate', 'serve', 'broadcast', 'report <results..>', 'fleet', 'probe']) {
    assert.match(help.stdout, new RegExp(`ioswarm ${name} `))
  }
  assert.ok(help.packages.has('yargs'), 'the log is real: it saw yargs')
  assert.deepEqual(help.files.filter((f) => COMMAND_FOLDERS.some((folder) => f.startsWith(folder))), [])
  assert.deepEqual([...help.packages].filter((p) => COMMAND_PACKAGES.includes(p)), [])
  const version = await loadedByCli(t, ['--version'])
  assert.equal(version.code, 0, version.stderr)
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/)
  assert.deepEqual(version.files.filter((f) => COMMAND_FOLDERS.some((folder) => f.startsWith(folder))), [])
  assert.deepEqual([...version.packages].filter((p) => COMMAND_PACKAGES.includes(p)), [])
  // --version alone skips yargs (bin/ioswarm.js) and prints what yargs prints (given it twice, yargs answers).
  assert.ok(!version.packages.has('yargs'), 'ioswarm --version loads no yargs')
  const viaYargs = await runCli(t, ['bin/ioswarm.js', '--version', '--version'])
  assert.equal(viaYargs.code, 0, viaYargs.stderr)
  assert.equal(version.stdout, viaYargs.stdout)
})

test('a command loads its own module only: report --help loads the report command, not the runner nor the simulator', async (t) => {
  const report = await loadedByCli(t, ['report', '--help'])
  assert.equal(report.code, 0, report.stderr)
  assert.match(report.stdout, /^ioswarm report <results\.\.>\n\nWrite an HTML report from /)
  assert.ok(report.files.includes('results/cli.js'), 'its own command module')
  assert.deepEqual(report.files.filter((f) => ['runner/', 'simulator/', 'server/', 'infra/', 'broadcaster/'].some((folder) => f.startsWith(folder))), [])
  assert.deepEqual([...report.packages].filter((p) => ['socket.io', 'socket.io-client', 'ioredis', 'prom-client', 'pm2'].includes(p)), [])
})

test('ioswarm --help (or -h) alone prints yargs\' help without yargs, byte for byte; in another language or a narrow terminal, yargs prints it', async (t) => {
  const english = { LC_ALL: 'en_US.UTF-8' }
  const viaYargs = await loadedByCli(t, ['--help', '--help'], { env: english })
  assert.ok(viaYargs.packages.has('yargs'))
  for (const flag of ['--help', '-h']) {
    const fast = await loadedByCli(t, [flag], { env: english })
    assert.equal(fast.code, 0, fast.stderr)
    assert.ok(!fast.packages.has('yargs') && !fast.packages.has('cliui') && !fast.packages.has('string-width'), `${flag}: ${[...fast.packages].join(', ')}`)
    assert.ok(fast.files.includes('bin/top-help.js'), 'the log is real: it saw the fast help')
    assert.deepEqual(fast.files.filter((f) => COMMAND_FOLDERS.some((folder) => f.startsWith(folder))), [])
    assert.equal(fast.stdout, viaYargs.stdout, flag)
    assert.equal(fast.stderr, '')
  }
  // A terminal 60 wide: the same bytes as yargs' at that width.
  const narrow = await loadedByCli(t, ['--help'], { env: english, nodeArgs: columnsArgs(60) })
  const narrowYargs = await runCli(t, [...columnsArgs(60), 'bin/ioswarm.js', '--help', '--help'], { env: english })
  assert.ok(!narrow.packages.has('yargs'))
  assert.equal(narrow.stdout, narrowYargs.stdout)
  assert.notEqual(narrow.stdout, viaYargs.stdout, 'the width was 60, not 100')
  // Narrower than the fast help's least width, or in German: yargs.
  const tiny = await loadedByCli(t, ['--help'], { env: english, nodeArgs: columnsArgs(30) })
  assert.ok(tiny.packages.has('yargs') && tiny.code === 0 && tiny.stdout.includes('ioswarm run'), tiny.stderr)
  const german = await loadedByCli(t, ['--help'], { env: { LC_ALL: 'de_DE.UTF-8' } })
  assert.ok(german.packages.has('yargs') && german.code === 0, german.stderr)
  assert.match(german.stdout, /^Kommandos:$/m)
})

test('--help and --version to a reader that is gone exit 0 and print no error, as yargs\' path does', async (t) => {
  for (const args of [['--help'], ['--version'], ['--help', '--help']]) {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'en_US.UTF-8' } })
    t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
    // The reading end closes before the child has loaded: its one write meets EPIPE.
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (d) => { stderr += d })
    const [code] = await once(child, 'close')
    assert.equal(code, 0, `${args.join(' ')}: ${stderr}`)
    assert.equal(stderr, '', args.join(' '))
  }
})
