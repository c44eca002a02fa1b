// A record reviewed by `tengen review`, read with Sabaki's own SGF parser
// (@sabaki/sgf, the library Sabaki opens files with): every position has
// the win rate (SBKV, Black's, in percent) and the score lead (SBKS,
// Black's) that Sabaki's graph reads, each move a comment, the root the
// game's summary; the moves are the record's own, and the file survives
// Sabaki's writer unchanged in content.
//
// Needs TENGEN_BIN (the tengen binary) and TENGEN_KATAGO_MODEL (a KataGo
// network, .bin.gz); without them the test fails.

import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {test} from 'node:test'
import {fileURLToPath} from 'node:url'

import sgf from '@sabaki/sgf'

import {scaled} from './time-scale.mjs'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const RECORD = resolve(
  HERE,
  '../../../gtp/tests/data/finished/mcts-vs-gnugo-level10-9x9/game-0008.sgf',
)

function mainLine(root) {
  let nodes = [root]
  while (nodes[nodes.length - 1].children.length > 0) {
    nodes.push(nodes[nodes.length - 1].children[0])
  }
  return nodes
}

function moves(nodes) {
  return nodes.filter((n) => n.data.B || n.data.W).map((n) => (n.data.B ? 'B' + n.data.B[0] : 'W' + n.data.W[0]))
}

test('Sabaki reads the win rate, the score lead and the comments of a review', {timeout: scaled(900_000)}, () => {
  let bin = process.env.TENGEN_BIN
  let model = process.env.TENGEN_KATAGO_MODEL
  assert.ok(bin && existsSync(bin), `TENGEN_BIN (the tengen binary) is needed: ${bin}`)
  assert.ok(model && existsSync(model), `TENGEN_KATAGO_MODEL (a KataGo network) is needed: ${model}`)
  let dir = mkdtempSync(join(tmpdir(), 'tengen-review-sabaki-'))
  try {
    let out = join(dir, 'reviewed.sgf')
    // Bounded: a synchronous call that hung would stop the test's own timeout too.
    execFileSync(bin, ['review', RECORD, '--model', model, '--visits', '3', '-o', out], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: scaled(600_000),
    })
    let [original] = sgf.parse(readFileSync(RECORD, 'utf8'))
    let text = readFileSync(out, 'utf8')
    let [root] = sgf.parse(text)
    let nodes = mainLine(root)
    assert.deepEqual(moves(nodes), moves(mainLine(original)))
    assert.equal(nodes.length, moves(nodes).length + 1)

    for (let [depth, node] of nodes.entries()) {
      // As Sabaki's graph reads them: `+node.data.SBKV[0]`.
      let winrate = +node.data.SBKV[0]
      let lead = +node.data.SBKS[0]
      assert.ok(Number.isFinite(winrate) && winrate >= 0 && winrate <= 100, `SBKV at ${depth}: ${node.data.SBKV}`)
      assert.ok(Number.isFinite(lead) && Math.abs(lead) < 81 + 10, `SBKS at ${depth}: ${node.data.SBKS}`)
      // Black's point of view: a lead for Black goes with Black's chances.
      if (lead > 5) assert.ok(winrate > 50, `depth ${depth}: B+${lead} but ${winrate}%`)
      if (lead < -5) assert.ok(winrate < 50, `depth ${depth}: W+${-lead} but ${winrate}%`)
      let comment = node.data.C[0]
      assert.match(comment, /^—— tengen review ——\n/)
      if (depth > 0) {
        let last = depth > nodes.length - 3 // the two passes that end the game
        if (last) {
          assert.match(comment, new RegExp(`^Move ${depth}, (Black|White) pass: ends the game; not rated`, 'm'))
        } else {
          assert.match(comment, new RegExp(`^Move ${depth}, (Black|White) ([A-HJ-T]\\d+|pass): .*-?\\d+\\.\\d points lost`, 'm'))
          assert.match(comment, /^The engine preferred \(points lost\): /m)
        }
      }
    }
    let summary = nodes[0].data.C[0]
    assert.match(summary, /Reviewed by tengen \S+ with the network b10c384h6nbttflrs, 3 visits a position\./)
    assert.match(summary, /^Black: \d+ moves rated, -?\d+\.\d points lost in all/m)
    assert.match(summary, /^White: \d+ moves rated, -?\d+\.\d points lost in all/m)
    // The game's result went the way the review's last position says.
    let last = +nodes[nodes.length - 1].data.SBKS[0]
    assert.equal(original.data.RE[0][0], last > 0 ? 'B' : 'W', `RE ${original.data.RE} but SBKS ${last}`)

    // Sabaki's writer keeps every property: written and read again, the
    // same tree.
    let [again] = sgf.parse(sgf.stringify([root]))
    let strip = (node) => ({data: node.data, children: node.children.map(strip)})
    assert.deepEqual(strip(again), strip(root))
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
})
