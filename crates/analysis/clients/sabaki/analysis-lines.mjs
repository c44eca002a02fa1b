// Reading `lz-analyze` / `kata-analyze` info lines by the rules Sabaki's
// engine syncer applies to them, and a small Go board to check the moves.
//
// Sabaki cuts a trailing `ownership v v …` off the line, splits the rest at
// each `info`, takes the principal variation as the run of vertices that ends
// the segment (a word after it and Sabaki finds no variation), reads the words
// before `pv` as key–value pairs, drops candidates whose `move` is not a
// vertex (a pass), and reads `winrate` as a share in [0, 1] when it has a
// decimal point (KataGo's dialect) and as hundredths of a percent otherwise
// (Leela Zero's). The parser below keeps what Sabaki would silently drop and
// reports it, so the tests can insist nothing is lost.

const COLUMNS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
const VERTEX = /^(pass|[A-HJ-Za-hj-z]\d+)$/

// A GTP vertex ("D4") as [x, y] with y counted from the top, as Sabaki does;
// null if it is not a vertex of a board of that size.
export function parseVertex(text, size) {
  if (!/^[A-HJ-Za-hj-z]\d+$/.test(text)) return null
  let x = COLUMNS.indexOf(text[0].toUpperCase())
  let row = +text.slice(1)
  if (x < 0 || x >= size || row < 1 || row > size) return null
  return [x, size - row]
}

// Parses one `info …` line. Returns {candidates, ownership, problems}:
// candidates in line order, each {fields: {key: string}, pv: [vertex text]};
// ownership as numbers (or null); problems as strings, one for each thing
// Sabaki would misread or drop.
export function parseInfoLine(line) {
  let problems = []
  let ownership = null
  let ownershipMatch = line.match(/\s+ownership\s+(.+)$/)
  if (ownershipMatch) {
    ownership = ownershipMatch[1].trim().split(/\s+/).map(Number)
    line = line.slice(0, ownershipMatch.index)
  }
  let segments = line.split(/\s*\binfo\s+/).slice(1)
  if (!line.startsWith('info ')) problems.push(`line does not start with 'info ': ${line.slice(0, 40)}`)
  let candidates = []
  for (let segment of segments) {
    let tokens = segment.trim().split(/\s+/)
    let pvAt = tokens.indexOf('pv')
    if (pvAt < 0) {
      problems.push(`no pv in: ${segment.slice(0, 80)}`)
      continue
    }
    let pairs = tokens.slice(0, pvAt)
    let pv = tokens.slice(pvAt + 1)
    if (pairs.length % 2 !== 0) problems.push(`odd number of words before pv: ${pairs.join(' ')}`)
    if (pv.length === 0) problems.push(`empty pv in: ${segment.slice(0, 80)}`)
    let stray = pv.find(word => !VERTEX.test(word))
    if (stray != null) problems.push(`'${stray}' after the pv: Sabaki would drop this candidate`)
    let fields = {}
    for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]] = pairs[i + 1]
    candidates.push({fields, pv})
  }
  return {candidates, ownership, problems}
}

// Sabaki's reading of the win rate: percent.
export function sabakiWinratePercent(text) {
  return text.includes('.') ? +text * 100 : +text / 100
}

export class Board {
  constructor(size) {
    this.size = size
    this.stones = new Map() // "x,y" -> 'B' | 'W'
    this.koPoint = null
  }

  copy() {
    let other = new Board(this.size)
    other.stones = new Map(this.stones)
    other.koPoint = this.koPoint
    return other
  }

  *neighbours([x, y]) {
    for (let [nx, ny] of [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]) {
      if (nx >= 0 && nx < this.size && ny >= 0 && ny < this.size) yield [nx, ny]
    }
  }

  chain(point) {
    let colour = this.stones.get(`${point}`)
    let seen = new Set([`${point}`])
    let liberties = new Set()
    let todo = [point]
    while (todo.length > 0) {
      for (let n of this.neighbours(todo.pop())) {
        let key = `${n}`
        let occupant = this.stones.get(key)
        if (occupant == null) liberties.add(key)
        else if (occupant === colour && !seen.has(key)) {
          seen.add(key)
          todo.push(n)
        }
      }
    }
    return {stones: seen, liberties}
  }

  // Plays colour at a GTP vertex ("pass" allowed); throws on an illegal move.
  play(colour, vertexText) {
    if (vertexText.toLowerCase() === 'pass') {
      this.koPoint = null
      return
    }
    let point = parseVertex(vertexText, this.size)
    if (point == null) throw new Error(`${vertexText} is not a vertex of the ${this.size}x${this.size} board`)
    let key = `${point}`
    if (this.stones.has(key)) throw new Error(`${vertexText} is occupied`)
    if (key === this.koPoint) throw new Error(`${vertexText} retakes a ko at once`)
    let opponent = colour === 'B' ? 'W' : 'B'
    this.stones.set(key, colour)
    let captured = new Set()
    for (let n of this.neighbours(point)) {
      if (this.stones.get(`${n}`) === opponent) {
        let {stones, liberties} = this.chain(n)
        if (liberties.size === 0) for (let s of stones) captured.add(s)
      }
    }
    for (let s of captured) this.stones.delete(s)
    let own = this.chain(point)
    if (own.liberties.size === 0) {
      this.stones.delete(key)
      for (let s of captured) this.stones.set(s, opponent)
      throw new Error(`${vertexText} is a suicide for ${colour}`)
    }
    this.koPoint =
      captured.size === 1 && own.stones.size === 1 && own.liberties.size === 1 ? [...captured][0] : null
  }
}
