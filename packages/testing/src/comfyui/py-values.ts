import { parseJsonNumbers } from '@svc/core'
/**
 * Python's data model as ComfyUI sees a JSON body, so the stand-in validates and prints values the
 * way `json.loads` + `int()`/`float()`/`str()` do:
 *
 * - ints are arbitrary precision: a safe integer is a JS `number`, anything larger a `bigint`
 *   (`18446744073709551615` survives; `JSON.parse` would round it to `18446744073709552000`);
 * - floats are `PyFloat`, so `8.0` stays a float and prints as `8.0`, not `8`;
 * - so a plain `number` in a `PyValue` is always a Python int.
 */

/** A Python float (kept apart from ints: `150.0` prints as `150.0`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toString(): string {
    return pyFloatRepr(this.value)
  }
}

export type PyValue = null | boolean | number | bigint | PyFloat | string | PyValue[] | PyDict
export interface PyDict {
  [key: string]: PyValue
}

/** A Python exception the stand-in raises (type name as `full_type_name` prints it). */
export class PyException extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message)
  }
}

/** `except Exception as ex`: a Python exception passes, anything else (a bug here) is thrown on. */
export function toPyException(ex: unknown): PyException {
  if (ex instanceof PyException) return ex
  throw ex
}

export function isDict(v: unknown): v is PyDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat)
}

/**
 * `json.loads` semantics: ints stay exact (number or bigint), floats become `PyFloat`. Throws
 * `SyntaxError` on invalid JSON, like `JSON.parse`.
 */
export function parsePyJson(text: string): PyValue {
  return parseJsonNumbers(text, (n) => {
    if (!n.integer) return new PyFloat(Number(n.text))
    const v = Number(n.text)
    return Number.isSafeInteger(v) ? v : BigInt(n.text)
  }) as PyValue
}

/** `json.dumps` (default separators `", "` and `": "`, `ensure_ascii`); `undefined` members are left out. */
export function toPyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : floatJson(value)
  if (value instanceof PyFloat) return floatJson(value.value)
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
  if (Array.isArray(value)) return `[${value.map(toPyJson).join(', ')}]`
  const members = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
  return `{${members.map(([k, v]) => `${toPyJson(k)}: ${toPyJson(v)}`).join(', ')}}`
}

function floatJson(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity'
  return pyFloatRepr(v)
}

/** Python's `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function pyFloatRepr(v: number): string {
  if (Number.isNaN(v)) return 'nan'
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf'
  if (Object.is(v, -0)) return '-0.0'
  const abs = Math.abs(v)
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    const [mant, exp] = v.toExponential().split('e') as [string, string]
    const sign = exp.startsWith('-') ? '-' : '+'
    return `${mant}e${sign}${exp.replace(/^[+-]/, '').padStart(2, '0')}`
  }
  return Number.isInteger(v) ? `${v}.0` : String(v)
}

export function pyTypeName(v: PyValue): string {
  if (v === null) return 'NoneType'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number' || typeof v === 'bigint') return 'int'
  if (v instanceof PyFloat) return 'float'
  if (typeof v === 'string') return 'str'
  return Array.isArray(v) ? 'list' : 'dict'
}

/** Python's `str()`. */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v)
}

/** Python's `repr()`. */
export function pyRepr(v: PyValue): string {
  if (v === null) return 'None'
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'number' || typeof v === 'bigint') return v.toString()
  if (v instanceof PyFloat) return pyFloatRepr(v.value)
  if (typeof v === 'string') return reprString(v)
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`
  return `{${Object.entries(v)
    .map(([k, x]) => `${reprString(k)}: ${pyRepr(x)}`)
    .join(', ')}}`
}

function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = ''
  for (const ch of s) {
    const code = ch.codePointAt(0)!
    if (ch === '\\' || ch === quote) out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`
    else out += ch
  }
  return `${quote}${out}${quote}`
}

function normalizeInt(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
}

const INT_LITERAL = /^[+-]?\d+(?:_\d+)*$/
const FLOAT_LITERAL =
  /^[+-]?(?:(?:\d+(?:_\d+)*)(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/
const FLOAT_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i

/** Python's `int(v)`; throws `PyException` with Python's message. */
export function pyInt(v: PyValue): number | bigint {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number' || typeof v === 'bigint') return v
  if (v instanceof PyFloat) {
    if (Number.isNaN(v.value)) throw new PyException('ValueError', 'cannot convert float NaN to integer')
    if (!Number.isFinite(v.value))
      throw new PyException('OverflowError', 'cannot convert float infinity to integer')
    return normalizeInt(BigInt(Math.trunc(v.value)))
  }
  if (typeof v === 'string') {
    const s = v.trim()
    if (INT_LITERAL.test(s)) return normalizeInt(BigInt(s.replaceAll('_', '')))
    throw new PyException('ValueError', `invalid literal for int() with base 10: ${pyRepr(v)}`)
  }
  throw new PyException(
    'TypeError',
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`,
  )
}

/** Python's `float(v)`. */
export function pyFloat(v: PyValue): PyFloat {
  if (typeof v === 'boolean') return new PyFloat(v ? 1 : 0)
  if (typeof v === 'number' || typeof v === 'bigint') {
    const n = Number(v)
    if (!Number.isFinite(n)) throw new PyException('OverflowError', 'int too large to convert to float')
    return new PyFloat(n)
  }
  if (v instanceof PyFloat) return v
  if (typeof v === 'string') {
    const s = v.trim()
    if (FLOAT_LITERAL.test(s)) return new PyFloat(Number(s.replaceAll('_', '')))
    const special = FLOAT_SPECIAL.exec(s)
    if (special) {
      const sign = special[1] === '-' ? -1 : 1
      return new PyFloat(special[2]!.toLowerCase() === 'nan' ? Number.NaN : sign * Number.POSITIVE_INFINITY)
    }
    throw new PyException('ValueError', `could not convert string to float: ${pyRepr(v)}`)
  }
  throw new PyException(
    'TypeError',
    `float() argument must be a string or a real number, not '${pyTypeName(v)}'`,
  )
}

/** Python truthiness (`bool(v)`). */
export function pyBool(v: PyValue): boolean {
  if (v === null) return false
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  if (typeof v === 'bigint') return v !== 0n
  if (v instanceof PyFloat) return v.value !== 0
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0
  return Object.keys(v).length > 0
}

function isNumeric(v: PyValue): v is boolean | number | bigint | PyFloat {
  return typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' || v instanceof PyFloat
}

/** Orders two numbers as Python does (exact for ints of any size). NaN compares false both ways. */
export function pyCompare(a: PyValue, b: PyValue): -1 | 0 | 1 | undefined {
  if (!isNumeric(a) || !isNumeric(b)) return undefined
  if (!(a instanceof PyFloat) && !(b instanceof PyFloat)) {
    const x = BigInt(a)
    const y = BigInt(b)
    return x < y ? -1 : x > y ? 1 : 0
  }
  const x = a instanceof PyFloat ? a.value : Number(a)
  const y = b instanceof PyFloat ? b.value : Number(b)
  if (Number.isNaN(x) || Number.isNaN(y)) return undefined
  return x < y ? -1 : x > y ? 1 : 0
}

/** Python `==` for the scalars a combo list holds. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (isNumeric(a) && isNumeric(b)) return pyCompare(a, b) === 0
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b
  return toPyJson(a) === toPyJson(b)
}

/** The JS view of a value that tests assert on: floats as numbers, big ints stay `bigint`. */
export function toJsValue(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value
  if (Array.isArray(v)) return v.map(toJsValue)
  if (isDict(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJsValue(x)]))
  return v
}
