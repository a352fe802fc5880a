/**
 * fast-check arbitraries of request bodies that no JSON or multipart endpoint of svc may accept:
 * every one of them must be answered 4xx with the error body. Each family is invalid for every
 * endpoint by construction (no body here is accidentally valid), so a 2xx is a finding too.
 */
import fc from 'fast-check'

/** Field names the endpoints know: used to build wrong types for them. */
const KNOWN = [
  'model',
  'messages',
  'prompt',
  'input',
  'label',
  'scope',
  'query',
  'documents',
  'voice',
  'n',
  'size',
]

export interface Body {
  bytes: Buffer
  /** A short description for failure messages (the body itself may be megabytes). */
  kind: string
}

const body = (kind: string, text: string | Buffer): Body => ({
  kind,
  bytes: typeof text === 'string' ? Buffer.from(text, 'utf8') : text,
})

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Text and bytes that are not JSON at all (never empty: an empty body means "{}" on some routes). */
const notJson = fc.oneof(
  fc
    .string({ unit: 'binary', minLength: 1, maxLength: 3000 })
    .filter((s) => s.trim() !== '' && !parses(s))
    .map((s) => body('not JSON (text)', s)),
  fc
    .uint8Array({ minLength: 1, maxLength: 3000 })
    .map((b) => Buffer.from(b))
    .filter((b) => b.toString('utf8').trim() !== '' && !parses(b.toString('utf8')))
    .map((b) => body('not JSON (bytes)', b)),
  fc
    .constantFrom(
      '{',
      '{"model":',
      '{"model":"x",}',
      '{"a":1}{"b":2}',
      '[1,2',
      'nul',
      '\u0000',
      // A byte-order mark before a cut-off body. (A BOM before a whole object is not broken: Hono's
      // text decoding drops it, and `{"model":"x"}` is a valid slot config since `model` may be a string.)
      '\ufeff{"model":"x"',
      '{"model":"\\ud800"',
      `{"model":${'9'.repeat(400)}`,
    )
    .map((s) => body('broken JSON', s)),
)

/** Valid JSON that is not an object (every endpoint wants an object). */
const notObject = fc
  .jsonValue({ maxDepth: 3 })
  .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
  .map((v) => body('JSON, not an object', JSON.stringify(v)))

/**
 * An object with at least one key, none of them a known field: it lacks what every endpoint needs
 * (`model`, `label`) or, for strict ones (slot config), has a field they do not know.
 */
const strangers = fc
  .dictionary(
    fc
      .string({ minLength: 1, maxLength: 16 })
      .filter((k) => !KNOWN.includes(k) && !['__proto__'].includes(k)),
    fc.jsonValue({ maxDepth: 3 }),
    { minKeys: 1, maxKeys: 6 },
  )
  .map((o) => body('object of unknown fields', JSON.stringify(o)))

/** A value that is none of string / object: wrong for `model` and `label` everywhere. */
const neitherStringNorObject = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
)

/** The fields endpoints require, with a wrong type. */
const wrongTypes = fc
  .record({
    model: neitherStringNorObject,
    label: neitherStringNorObject,
    messages: fc.oneof(fc.string(), fc.integer(), fc.constant([])),
    prompt: fc.oneof(fc.integer(), fc.constant({}), fc.constant(null)),
    input: fc.oneof(fc.integer(), fc.constant(''), fc.constant({})),
  })
  .map((o) => body('required fields of wrong types', JSON.stringify(o)))

/** Sizes and shapes that cost the parser: deep nesting, huge strings, many keys, long numbers. */
const heavy = fc.oneof(
  fc
    .integer({ min: 1_000, max: 200_000 })
    .map((depth) => body(`nested ${depth} deep`, `{"model":${'['.repeat(depth)}${']'.repeat(depth)}}`)),
  fc
    .integer({ min: 100_000, max: 3_000_000 })
    .map((n) => body(`a ${n}-byte string field`, `{"model":7,"label":7,"input":"${'x'.repeat(n)}"}`)),
  fc
    .integer({ min: 1_000, max: 10_000 })
    .map((n) =>
      body(
        `${n} keys`,
        `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')},"model":1,"label":1}`,
      ),
    ),
  fc
    .integer({ min: 1_000, max: 200_000 })
    .map((n) =>
      body(`a ${n}-digit number`, `{"model":1,"label":1,"seed":${'7'.repeat(n)},"n":${'9'.repeat(n)}}`),
    ),
)

/** The array fields of svc's bodies (inference, management and the chat server's). */
export const ARRAY_FIELDS = [
  'messages',
  'prompt',
  'input',
  'documents',
  'tools',
  'stop',
  'attachments',
  'args',
]

/**
 * A string model (so validation gets past it) and an array field of up to `maxBytes` of wrong
 * elements: a validator that collects an issue per element spends seconds and hundreds of MB here.
 * Invalid everywhere: the elements fit no schema, `nope` is no model, `title` is no number.
 */
export function hugeArray(maxBytes: number): fc.Arbitrary<Body> {
  return fc
    .record({
      field: fc.constantFrom(...ARRAY_FIELDS),
      element: fc.constantFrom('0', '{}', 'null', '[]', '[0]', 'true'),
      bytes: fc.integer({ min: 100_000, max: maxBytes }),
    })
    .map(({ field, element, bytes }) => {
      const n = Math.floor(bytes / (element.length + 1))
      return body(
        `"${field}": ${n} × ${element}`,
        `{"model":"nope","title":5,"content":"x","${field}":[${`${element},`.repeat(n)}${element}]}`,
      )
    })
}

/** Every JSON body family; huge arrays up to `maxArrayBytes` (default 1 MB, the /api and chat caps). */
export function badJsonBodies(maxArrayBytes = 1_000_000): fc.Arbitrary<Body> {
  return fc.oneof(
    { arbitrary: notJson, weight: 3 },
    { arbitrary: notObject, weight: 2 },
    { arbitrary: strangers, weight: 3 },
    { arbitrary: wrongTypes, weight: 2 },
    { arbitrary: heavy, weight: 1 },
    { arbitrary: hugeArray(maxArrayBytes), weight: 1 },
  )
}

/** Every JSON body family. */
export const badJsonBody: fc.Arbitrary<Body> = badJsonBodies()

/** Content types a client may send with a JSON body (wrong ones included). */
export const jsonContentType = fc.oneof(
  fc.constant('application/json'),
  fc.constant('application/json; charset=utf-8'),
  fc.constant('text/plain'),
  fc.constant('application/x-www-form-urlencoded'),
  fc.constant('multipart/form-data; boundary=x'),
  fc.constant(undefined),
  fc.stringMatching(/^[a-z]{1,10}\/[a-z0-9.+-]{1,20}$/),
)

const boundaryArb = fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,40}$/)

/** Multipart bodies without a usable `model` field (or not multipart at all). */
export const badMultipart: fc.Arbitrary<{ body: Body; contentType: string | undefined }> = fc.oneof(
  // Random bytes under a multipart content type.
  fc.tuple(boundaryArb, fc.uint8Array({ maxLength: 4000 })).map(([b, bytes]) => ({
    body: body('random bytes as multipart', Buffer.from(bytes)),
    contentType: `multipart/form-data; boundary=${b}`,
  })),
  // A well-formed form with a file but no model field.
  fc.tuple(boundaryArb, fc.uint8Array({ maxLength: 2000 })).map(([b, bytes]) => ({
    body: body(
      'form without model',
      Buffer.concat([
        Buffer.from(
          `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
        ),
        Buffer.from(bytes),
        Buffer.from(`\r\n--${b}--\r\n`),
      ]),
    ),
    contentType: `multipart/form-data; boundary=${b}`,
  })),
  // An empty model value.
  boundaryArb.map((b) => ({
    body: body(
      'empty model',
      `--${b}\r\nContent-Disposition: form-data; name="model"\r\n\r\n\r\n--${b}--\r\n`,
    ),
    contentType: `multipart/form-data; boundary=${b}`,
  })),
  // Many unterminated model headers: a scan that restarts for each one is quadratic.
  fc.tuple(boundaryArb, fc.integer({ min: 1_000, max: 30_000 })).map(([b, n]) => ({
    body: body(
      `${n} unterminated model headers`,
      `--${b}\r\n${'Content-Disposition: form-data; name="model"\r\n'.repeat(n)}`,
    ),
    contentType: `multipart/form-data; boundary=${b}`,
  })),
  // Not multipart at all.
  fc.tuple(jsonContentType, fc.uint8Array({ maxLength: 2000 })).map(([type, bytes]) => ({
    body: body('not multipart', Buffer.from(bytes)),
    contentType: type?.startsWith('multipart/') ? 'text/plain' : type,
  })),
  // multipart without a boundary parameter.
  fc.uint8Array({ maxLength: 500 }).map((bytes) => ({
    body: body('multipart without boundary', Buffer.from(bytes)),
    contentType: 'multipart/form-data',
  })),
)

/** Header values a client library can send (visible ASCII and spaces), for extra headers. */
export const headerValue = fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,200}$/)

/** Extra headers sent along: hostile values for headers svc reads. */
export const extraHeaders = fc.record(
  {
    'x-request-id': headerValue,
    'x-forwarded-for': headerValue,
    'x-forwarded-host': headerValue,
    origin: headerValue,
    'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'bogus'),
    accept: headerValue,
    'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'x-nonsense'),
  },
  { requiredKeys: [] },
)
