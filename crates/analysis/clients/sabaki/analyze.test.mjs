// `tengen gtp` with the katago bot, driven through Sabaki's engine layer
// (@sabaki/gtp): the position is set up by its ControllerStateTracker, live
// analysis (`kata-analyze`, `lz-analyze`) is read line by line through a
// subscriber, as Sabaki's engine syncer does, and stopped the way Sabaki
// stops it: by sending another command (`protocol_version`).
//
// Needs TENGEN_BIN (the tengen binary) and TENGEN_KATAGO_MODEL (a KataGo
// network, .bin.gz); without them every test fails. The waits only guard
// against a hang: they scale with TENGEN_TEST_TIME_SCALE (time-scale.mjs),
// and how long the stop took is reported, not asserted.

import assert from 'node:assert/strict'
import {existsSync, accessSync, constants} from 'node:fs'
import {test} from 'node:test'

import gtp from '@sabaki/gtp'

import {Board, parseInfoLine, parseVertex, sabakiWinratePercent} from './analysis-lines.mjs'
import {scaled} from './time-scale.mjs'

const {Controller, ControllerStateTracker} = gtp

const SIZE = 9
const KOMI = 7
// Black captures White's A1 with B1; A1 is then a suicide for White.
const HISTORY = [
  ['B', 'A2'],
  ['W', 'A1'],
  ['B', 'B1'],
  ['W', 'E5'],
  ['B', 'C4'],
  ['W', 'G5'],
]
const INTERVAL_CS = 10 // Sabaki's analysis interval, in centiseconds
const REPORTS = 5 // info lines to read before stopping, the search grown between them
// Hang guards, generous: a debug build that loads the network on a busy
// machine is slow, and a hang fails all the same.
const ANSWER_TIMEOUT_MS = scaled(120_000) // an answer to a command, the end of a stopped analysis
const REPORTS_TIMEOUT_MS = scaled(120_000)
const GENMOVE_TIMEOUT_MS = scaled(300_000)
const TEST_TIMEOUT_MS = scaled(600_000)

function engineCommand() {
  let bin = process.env.TENGEN_BIN
  let model = process.env.TENGEN_KATAGO_MODEL
  let missing = [['TENGEN_BIN', bin], ['TENGEN_KATAGO_MODEL', model]].filter(([, v]) => !v).map(([k]) => k)
  if (missing.length > 0) {
    assert.fail(
      `set TENGEN_BIN (the tengen binary) and TENGEN_KATAGO_MODEL (a KataGo network, .bin.gz); missing: ${missing.join(', ')}`
    )
  }
  try {
    accessSync(bin, constants.X_OK)
  } catch {
    assert.fail(`TENGEN_BIN=${bin} is not an executable file`)
  }
  if (!existsSync(model)) assert.fail(`TENGEN_KATAGO_MODEL=${model} does not exist`)
  return [bin, ['gtp', '--size', `${SIZE}`, '--bot', `katago:model=${model},threads=1`]]
}

function withTimeout(promise, ms, what) {
  let timer
  let timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

// Starts the engine as Sabaki does (name, version, protocol_version,
// list_commands) and sets up the position with the state tracker.
async function startEngine(t, history) {
  let [bin, args] = engineCommand()
  let controller = new Controller(bin, args)
  let stderr = []
  controller.on('stderr', ({content}) => stderr.push(content))
  t.after(async () => {
    // Sabaki's quit, then a kill if the engine has not ended by then.
    await controller.stop(scaled(10_000))
  })
  let tracker = new ControllerStateTracker(controller)
  controller.start()
  let answers = {}
  for (let name of ['name', 'version', 'protocol_version', 'list_commands']) {
    let response = await withTimeout(controller.sendCommand({name}), ANSWER_TIMEOUT_MS, name)
    assert.equal(response.error, false, `${name}: ${response.content}`)
    answers[name] = response.content
  }
  assert.equal(answers.protocol_version, '2')
  let commands = answers.list_commands.split('\n').map(x => x.trim())
  for (let name of ['lz-analyze', 'kata-analyze', 'kata-genmove_analyze', 'komi', 'boardsize', 'clear_board', 'play']) {
    assert.ok(commands.includes(name), `list_commands lacks ${name}`)
  }
  await withTimeout(
    tracker.sync({
      komi: KOMI,
      boardsize: [SIZE, SIZE],
      history: history.map(([colour, vertex]) => ({name: 'play', args: [colour, vertex]})),
    }),
    ANSWER_TIMEOUT_MS,
    'syncing the position'
  )
  assert.deepEqual(
    tracker.state.history.map(c => c.args),
    history.map(([c, v]) => [c, v.toUpperCase()])
  )
  return {controller, tracker, stderr}
}

function boardAfter(history) {
  let board = new Board(SIZE)
  for (let [colour, vertex] of history) board.play(colour, vertex)
  return board
}

// The visits of a report's candidates, together.
function visitsOf(line) {
  return parseInfoLine(line).candidates.reduce((sum, {fields}) => sum + (+fields.visits || 0), 0)
}

// Sends an analysis command through the tracker's queue, as Sabaki does,
// collects its info lines until `reports` have arrived and the search has
// grown since the first (however slow the machine, a live search grows),
// then stops it with protocol_version (Sabaki's sendAbort). Returns the info
// lines and how long the stop took, for the log.
async function analyseAndStop({controller, tracker, stderr}, command, reports = REPORTS) {
  let infoLines = []
  let otherLines = []
  let enough
  let enoughArrived = new Promise(resolve => (enough = resolve))
  let done = tracker.queueCommand(command, ({line}) => {
    if (line.startsWith('info ')) {
      infoLines.push(line)
      if (infoLines.length >= reports && visitsOf(line) > visitsOf(infoLines[0])) enough()
    } else if (line.trim() !== '') {
      otherLines.push(line)
    }
  })
  await withTimeout(
    enoughArrived,
    REPORTS_TIMEOUT_MS,
    `${reports} info lines from '${command.name} ${command.args.join(' ')}', the search growing ` +
      `(got ${infoLines.length}, visits ${infoLines.slice(0, 1).concat(infoLines.slice(-1)).map(visitsOf).join(' then ')}; ` +
      `stderr: ${stderr.slice(-5).join(' | ')})`
  )
  assert.ok(controller.busy, 'the analysis ended before it was stopped')
  let stoppedAt = Date.now()
  let abort = controller.sendCommand({name: 'protocol_version'})
  let response = await withTimeout(done, ANSWER_TIMEOUT_MS, `the end of '${command.name}' after protocol_version`)
  let answer = await withTimeout(abort, ANSWER_TIMEOUT_MS, 'the answer to protocol_version')
  let stopMs = Date.now() - stoppedAt
  assert.equal(response.error, false, `${command.name} answered an error: ${response.content}`)
  assert.equal(answer.error, false)
  assert.equal(answer.content, '2')
  assert.deepEqual(
    otherLines.filter(l => !/^=\s*$/.test(l)),
    [],
    `lines other than '=' and info lines in the answer to ${command.name}`
  )
  let name = await withTimeout(controller.sendCommand({name: 'name'}), ANSWER_TIMEOUT_MS, 'name after the analysis')
  assert.equal(name.error, false)
  assert.ok(name.content.length > 0)
  return {infoLines, stopMs}
}

// Checks the info lines as Sabaki reads them, and the moves against the position.
function checkReports(infoLines, {colour, board, dialect, ownership}) {
  let totals = []
  for (let line of infoLines) {
    let {candidates, ownership: owned, problems} = parseInfoLine(line)
    assert.deepEqual(problems, [], `Sabaki would misread: ${line.slice(0, 200)}`)
    assert.ok(candidates.length > 0, `no candidates in: ${line.slice(0, 200)}`)
    let total = 0
    candidates.forEach(({fields, pv}, i) => {
      let where = `candidate ${i} in ${line.slice(0, 120)}…`
      for (let key of ['move', 'visits', 'winrate', 'prior', 'order']) {
        assert.ok(key in fields, `${key} missing: ${where}`)
      }
      assert.equal(+fields.order, i, `order ${fields.order} at position ${i}: ${where}`)
      let visits = +fields.visits
      assert.ok(Number.isInteger(visits) && visits >= 1, `visits ${fields.visits}: ${where}`)
      total += visits
      let percent = sabakiWinratePercent(fields.winrate)
      assert.ok(percent >= 0 && percent <= 100, `winrate ${fields.winrate} reads as ${percent}%: ${where}`)
      if (dialect === 'kata') {
        assert.ok(fields.winrate.includes('.'), `KataGo's winrate needs a decimal point: ${fields.winrate}`)
        for (let key of ['scoreLead', 'scoreMean', 'utility', 'lcb']) {
          assert.ok(key in fields && Number.isFinite(+fields[key]), `${key}=${fields[key]}: ${where}`)
        }
        assert.ok(+fields.prior >= 0 && +fields.prior <= 1, `prior ${fields.prior}: ${where}`)
      } else {
        assert.match(fields.winrate, /^\d+$/, `Leela Zero's winrate is whole hundredths of a percent`)
        assert.match(fields.prior, /^\d+$/, `Leela Zero's prior is whole hundredths of a percent`)
        assert.ok(+fields.prior <= 10000)
      }
      // The move and its principal variation are legal from the position.
      assert.equal(pv[0], fields.move, `pv does not start with the move: ${where}`)
      if (fields.move.toLowerCase() !== 'pass') {
        assert.ok(parseVertex(fields.move, SIZE) != null, `move ${fields.move} is not a vertex`)
      }
      let line_board = board.copy()
      let turn = colour
      for (let vertex of pv) {
        try {
          line_board.play(turn, vertex)
        } catch (e) {
          assert.fail(`illegal ${turn} ${vertex} in the pv ${pv.join(' ')}: ${e.message}`)
        }
        turn = turn === 'B' ? 'W' : 'B'
      }
    })
    let moves = candidates.map(c => c.fields.move)
    assert.equal(new Set(moves).size, moves.length, `a move listed twice: ${moves.join(' ')}`)
    totals.push(total)
    if (ownership) {
      assert.ok(owned != null, `no ownership in: ${line.slice(0, 120)}`)
      assert.equal(owned.length, SIZE * SIZE)
      assert.ok(owned.every(v => Number.isFinite(v) && v >= -1 && v <= 1), 'ownership outside [-1, 1]')
    } else {
      assert.equal(owned, null, 'ownership without asking for it')
    }
  }
  // The search grows: the visits below the root never shrink between reports.
  for (let i = 1; i < totals.length; i++) {
    assert.ok(totals[i] >= totals[i - 1], `visits fell from ${totals[i - 1]} to ${totals[i]} between reports`)
  }
  if (totals.length > 1) assert.ok(totals.at(-1) > totals[0], `the search did not grow: ${totals.join(', ')}`)
}

test('kata-analyze streams info lines Sabaki reads, and protocol_version stops it', {timeout: TEST_TIMEOUT_MS}, async t => {
  let engine = await startEngine(t, HISTORY)
  let board = boardAfter(HISTORY)
  let command = {name: 'kata-analyze', args: ['B', `${INTERVAL_CS}`, 'ownership', 'true']}
  let {infoLines, stopMs} = await analyseAndStop(engine, command)
  checkReports(infoLines, {colour: 'B', board, dialect: 'kata', ownership: true})
  t.diagnostic(`${infoLines.length} reports; stopped ${stopMs} ms after protocol_version was sent`)
})

test('lz-analyze streams info lines Sabaki reads, and protocol_version stops it', {timeout: TEST_TIMEOUT_MS}, async t => {
  // White to move, with A1 (a suicide for White) empty.
  let history = [...HISTORY, ['B', 'D6']]
  let engine = await startEngine(t, history)
  let board = boardAfter(history)
  let command = {name: 'lz-analyze', args: ['W', `${INTERVAL_CS}`]}
  let {infoLines, stopMs} = await analyseAndStop(engine, command)
  checkReports(infoLines, {colour: 'W', board, dialect: 'lz', ownership: false})
  for (let line of infoLines) {
    let moves = parseInfoLine(line).candidates.map(c => c.fields.move)
    assert.ok(!moves.includes('A1'), `A1 (suicide for White) proposed: ${moves.join(' ')}`)
  }
  t.diagnostic(`${infoLines.length} reports; stopped ${stopMs} ms after protocol_version was sent`)
})

test('kata-genmove_analyze reports, then plays a legal move the tracker records', {timeout: TEST_TIMEOUT_MS}, async t => {
  let engine = await startEngine(t, HISTORY)
  let board = boardAfter(HISTORY)
  // A short search: the bot's own limit ends it.
  let set = await engine.controller.sendCommand({name: 'kata-set-param', args: ['maxVisits', '24']})
  assert.equal(set.error, false, `kata-set-param maxVisits: ${set.content}`)
  let infoLines = []
  let played = null
  let response = await withTimeout(
    engine.tracker.queueCommand({name: 'kata-genmove_analyze', args: ['B', `${INTERVAL_CS}`]}, ({line}) => {
      if (line.startsWith('info ')) infoLines.push(line)
      else if (line.startsWith('play ')) played = line.slice('play '.length).trim()
    }),
    GENMOVE_TIMEOUT_MS,
    'kata-genmove_analyze'
  )
  assert.equal(response.error, false, response.content)
  assert.ok(played != null, 'no play line')
  assert.ok(infoLines.length > 0, 'no info line before the play line')
  checkReports(infoLines, {colour: 'B', board, dialect: 'kata', ownership: false})
  board.play('B', played) // throws if illegal
  // Sabaki's state tracker records the move from the play line.
  await withTimeout(
    (async () => {
      while (engine.tracker.state.history.length < HISTORY.length + 1) await new Promise(r => setTimeout(r, 20))
    })(),
    ANSWER_TIMEOUT_MS,
    'the tracker to record the move'
  )
  assert.deepEqual(engine.tracker.state.history.at(-1).args, ['B', played.toUpperCase()])
  let name = await engine.controller.sendCommand({name: 'name'})
  assert.equal(name.error, false)
})
