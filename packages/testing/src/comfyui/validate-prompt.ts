/**
 * ComfyUI's `validate_prompt` / `validate_inputs` (execution.py @ a125cd84), check
 * for check: the same order, the same error types, messages, `details` and `extra_info`, the same
 * quirks (one error per input; `step`/`round` not enforced; a literal where a link type is expected
 * passes; nodes invalid only because of an upstream node carry no errors of their own).
 *
 * Like ComfyUI, validation coerces literal INT/FLOAT/STRING/BOOLEAN inputs in place, so the prompt
 * that is queued (and shown in history) holds the coerced values.
 */
import { checkLiteralInput, type ValidationError } from './literal-input'
import { linkTypeMatches, type NodeSchemas } from './node-schemas'
import {
  isDict,
  type PyDict,
  PyException,
  type PyValue,
  pyEquals,
  pyRepr,
  pyStr,
  pyTypeName,
  toPyException,
} from './py-values'

export type { ValidationError } from './literal-input'

export interface NodeError {
  errors: ValidationError[]
  dependent_outputs: string[]
  class_type: string
}

export type ValidationResult =
  | { ok: true; outputs: string[]; nodeErrors: Record<string, NodeError> }
  | { ok: false; error: ValidationError; nodeErrors: Record<string, NodeError> }

type Validated = [valid: boolean, reasons: ValidationError[], id: string]

interface Context {
  prompt: PyDict
  schemas: NodeSchemas
  validated: Map<string, Validated>
  inProgress: Set<string>
  inputExists: (name: string) => boolean
}

/**
 * Classes whose `VALIDATE_INPUTS(s, image)` (nodes.py) replaces the combo check of `image`: the file
 * must exist (`folder_paths.exists_annotated_filepath`), listed or not.
 */
const VALIDATES_IMAGE = new Set(['LoadImage', 'LoadImageMask'])

export interface ValidateOptions {
  /** `partial_execution_targets` (only those output nodes run). */
  partialTargets?: PyValue
  /** Whether a LoadImage / LoadImageMask `image` names an existing file. Default: never. */
  inputExists?: (name: string) => boolean
}

/** What `traceback.format_tb` would give; the stand-in has no Python frames to show. */
function traceback(where: string): string[] {
  return [`  File "comfyui-stand-in/validate-prompt.ts", in ${where}\n`]
}

function topError(type: string, message: string, details = ''): ValidationError {
  return { type, message, details, extra_info: {} }
}

/**
 * Validates an API-format graph. Throws `PyException` where ComfyUI's handler would raise (the
 * server answers 500).
 */
export function validatePrompt(
  prompt: PyValue,
  schemas: NodeSchemas,
  options: ValidateOptions = {},
): ValidationResult {
  const { partialTargets } = options
  if (!isDict(prompt)) throw new PyException('TypeError', `'${pyTypeName(prompt)}' object is not a mapping`)
  const outputs: string[] = []
  for (const [id, node] of Object.entries(prompt)) {
    if (!isDict(node) || !('class_type' in node)) {
      const error = topError(
        'invalid_prompt',
        'Cannot execute because a node is missing the class_type property.',
        `Node ID '#${id}'`,
      )
      return { ok: false, error, nodeErrors: {} }
    }
    const schema = typeof node.class_type === 'string' ? schemas.get(node.class_type) : undefined
    if (!schema) {
      const error = topError(
        'invalid_prompt',
        `Cannot execute because node ${pyStr(node.class_type)} does not exist.`,
        `Node ID '#${id}'`,
      )
      return { ok: false, error, nodeErrors: {} }
    }
    const targeted =
      partialTargets === undefined || partialTargets === null
        ? true
        : Array.isArray(partialTargets) && partialTargets.some((t) => pyEquals(t, id))
    if (schema.outputNode && targeted && !outputs.includes(id)) outputs.push(id)
  }
  if (outputs.length === 0) {
    return { ok: false, error: topError('prompt_no_outputs', 'Prompt has no outputs'), nodeErrors: {} }
  }

  const inputExists = options.inputExists ?? (() => false)
  const ctx: Context = { prompt, schemas, validated: new Map(), inProgress: new Set(), inputExists }
  const good: string[] = []
  const failed: [string, ValidationError[]][] = []
  const nodeErrors: Record<string, NodeError> = {}
  for (const o of outputs) {
    let valid: boolean
    let reasons: ValidationError[]
    try {
      ;[valid, reasons] = validateInputs(ctx, o)
    } catch (thrown) {
      const ex = toPyException(thrown)
      valid = false
      reasons = [
        {
          type: 'exception_during_validation',
          message: 'Exception when validating node',
          details: ex.message,
          extra_info: { exception_type: ex.pyType, traceback: traceback('validate_prompt') },
        },
      ]
      ctx.validated.set(o, [false, reasons, o])
    }
    if (valid) {
      good.push(o)
      continue
    }
    failed.push([o, reasons])
    // Every node validated so far with errors of its own names this output as dependent.
    for (const [id, [ok, why]] of ctx.validated) {
      if (ok || why.length === 0) continue
      const node = prompt[id] as PyDict
      nodeErrors[id] ??= { errors: why, dependent_outputs: [], class_type: String(node.class_type) }
      nodeErrors[id].dependent_outputs.push(o)
    }
  }
  if (good.length === 0) {
    const details = failed.flatMap(([, errs]) => errs.map((e) => `${e.message}: ${e.details}`)).join('\n')
    const error = topError('prompt_outputs_failed_validation', 'Prompt outputs failed validation', details)
    return { ok: false, error, nodeErrors }
  }
  return { ok: true, outputs: good, nodeErrors }
}

function validateInputs(ctx: Context, id: string): Validated {
  const done = ctx.validated.get(id)
  if (done) return done
  if (ctx.inProgress.has(id)) throw new PyException('RecursionError', 'maximum recursion depth exceeded')
  ctx.inProgress.add(id)
  try {
    const result = checkNode(ctx, id)
    ctx.validated.set(id, result)
    return result
  } finally {
    ctx.inProgress.delete(id)
  }
}

function checkNode(ctx: Context, id: string): Validated {
  const node = ctx.prompt[id] as PyDict
  if (!('inputs' in node)) throw new PyException('KeyError', "'inputs'")
  const inputs = node.inputs
  if (!isDict(inputs))
    throw new PyException('TypeError', `'${pyTypeName(inputs)}' object is not subscriptable`)
  const schema = ctx.schemas.get(node.class_type as string)!
  const errors: ValidationError[] = []
  let valid = true

  for (const [x, info] of schema.inputs) {
    if (!(x in inputs)) {
      if (info.category === 'required') {
        errors.push({
          type: 'required_input_missing',
          message: 'Required input is missing',
          details: x,
          extra_info: { input_name: x },
        })
      }
      continue
    }
    const val = inputs[x]!
    const config: PyValue = [info.type, info.extra]

    if (Array.isArray(val)) {
      if (val.length !== 2) {
        errors.push({
          type: 'bad_linked_input',
          message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
          details: x,
          extra_info: { input_name: x, input_config: config, received_value: val },
        })
        continue
      }
      const [oId, slot] = val as [PyValue, PyValue]
      const receivedType = linkedType(ctx, oId, slot)
      if (!linkTypeMatches(receivedType, info.type)) {
        errors.push({
          type: 'return_type_mismatch',
          message: 'Return type mismatch between linked nodes',
          details: `${x}, received_type(${receivedType}) mismatch input_type(${pyStr(info.type)})`,
          extra_info: { input_name: x, input_config: config, received_type: receivedType, linked_node: val },
        })
        continue
      }
      const source = oId as string
      try {
        if (!validateInputs(ctx, source)[0]) valid = false
      } catch (thrown) {
        const ex = toPyException(thrown)
        valid = false
        const reasons: ValidationError[] = [
          {
            type: 'exception_during_inner_validation',
            message: 'Exception when validating inner node',
            details: ex.message,
            extra_info: {
              input_name: x,
              input_config: config,
              exception_message: ex.message,
              exception_type: ex.pyType,
              traceback: traceback('validate_inputs'),
              linked_node: val,
            },
          },
        ]
        ctx.validated.set(source, [false, reasons, source])
      }
      continue
    }

    if (VALIDATES_IMAGE.has(schema.name) && x === 'image') continue
    const refused = checkLiteralInput(inputs, x, info)
    if (refused) errors.push(refused)
  }
  const image = inputs.image
  if (VALIDATES_IMAGE.has(schema.name) && image !== undefined && !Array.isArray(image)) {
    if (!ctx.inputExists(pyStr(image))) {
      errors.push({
        type: 'custom_validation_failed',
        message: 'Custom validation failed for node',
        details: `image - Invalid image file: ${pyStr(image)}`,
        extra_info: { input_name: 'image' },
      })
    }
  }
  return errors.length > 0 || !valid ? [false, errors, id] : [true, [], id]
}

/** `RETURN_TYPES[slot]` of the linked node, raising what Python would for a bad link. */
function linkedType(ctx: Context, oId: PyValue, slot: PyValue): string {
  if (Array.isArray(oId) || isDict(oId))
    throw new PyException('TypeError', `unhashable type: '${pyTypeName(oId)}'`)
  if (typeof oId !== 'string' || !(oId in ctx.prompt)) throw new PyException('KeyError', pyRepr(oId))
  const source = ctx.prompt[oId] as PyDict
  const returns = ctx.schemas.get(source.class_type as string)!.outputs
  if (typeof slot !== 'number' && typeof slot !== 'bigint' && typeof slot !== 'boolean') {
    throw new PyException('TypeError', `tuple indices must be integers or slices, not ${pyTypeName(slot)}`)
  }
  const i = Number(slot)
  const type = returns[i < 0 ? returns.length + i : i]
  if (type === undefined) throw new PyException('IndexError', 'tuple index out of range')
  return type
}
