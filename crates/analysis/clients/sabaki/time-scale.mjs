// The scale of every hang guard in these tests: the environment variable
// TENGEN_TEST_TIME_SCALE, a positive number, 1 when unset. A wait only
// guards against a hang, so the figures it is given are generous and a slow
// or busy machine may stretch them; tests assert on what happened, never on
// how fast.

export const TIME_SCALE_VARIABLE = 'TENGEN_TEST_TIME_SCALE'

// A mistyped setting must not silently mean 1: the test files import this
// module, so each fails at once, naming the variable.
function readTimeScale() {
  let text = process.env[TIME_SCALE_VARIABLE]
  if (text === undefined) return 1
  let scale = text.trim() === '' ? NaN : Number(text)
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new Error(`${TIME_SCALE_VARIABLE}=${JSON.stringify(text)}: expected a positive number, such as 2 or 0.5`)
  }
  return scale
}

export const TIME_SCALE = readTimeScale()

// `ms` multiplied by the scale, capped at the longest delay a timer takes
// (beyond it Node fires at once).
export function scaled(ms) {
  return Math.min(Math.round(ms * TIME_SCALE), 2 ** 31 - 1)
}
