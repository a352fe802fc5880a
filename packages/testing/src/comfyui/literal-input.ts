/**
 * The part of ComfyUI's `validate_inputs` (execution.py @ a125cd84) that checks one literal (not
 * linked) input: coerce it to its widget type in place, then `min`, `max` and the choice list, in that
 * order, one error per input. `step` and `round` are not enforced, as in ComfyUI.
 */
import type { InputInfo } from './node-schemas'
import {
  isDict,
  type PyDict,
  type PyValue,
  pyBool,
  pyCompare,
  pyEquals,
  pyFloat,
  pyInt,
  pyRepr,
  pyStr,
  toPyException,
} from './py-values'

/** One entry of a node's `errors` (and the top-level `error`) in ComfyUI's 400 answer. */
export interface ValidationError {
  type: string
  message: string
  details: string
  extra_info: PyDict
}

/**
 * Checks `inputs[x]` against its schema entry; replaces it with the coerced value (so the queued
 * prompt holds what ComfyUI would run). Undefined when it passes, else the one error ComfyUI reports.
 */
export function checkLiteralInput(inputs: PyDict, x: string, info: InputInfo): ValidationError | undefined {
  const config: PyValue = [info.type, info.extra]
  let val = inputs[x]!
  try {
    if (isDict(val) && '__value__' in val) {
      val = val.__value__!
      inputs[x] = val
    }
    if (info.type === 'INT') val = pyInt(val)
    else if (info.type === 'FLOAT') val = pyFloat(val)
    else if (info.type === 'STRING') val = pyStr(val)
    else if (info.type === 'BOOLEAN') val = pyBool(val)
    inputs[x] = val
  } catch (thrown) {
    const ex = toPyException(thrown)
    return {
      type: 'invalid_input_type',
      message: `Failed to convert an input value to a ${pyStr(info.type)} value`,
      details: `${x}, ${pyStr(val)}, ${ex.message}`,
      extra_info: {
        input_name: x,
        input_config: config,
        received_value: val,
        exception_message: ex.message,
      },
    }
  }

  const min = info.extra.min
  if (min !== undefined && pyCompare(val, min) === -1) {
    return {
      type: 'value_smaller_than_min',
      message: `Value ${pyStr(val)} smaller than min of ${pyStr(min)}`,
      details: x,
      extra_info: { input_name: x, input_config: config, received_value: val },
    }
  }
  const max = info.extra.max
  if (max !== undefined && pyCompare(val, max) === 1) {
    return {
      type: 'value_bigger_than_max',
      message: `Value ${pyStr(val)} bigger than max of ${pyStr(max)}`,
      details: x,
      extra_info: { input_name: x, input_config: config, received_value: val },
    }
  }
  if (Array.isArray(info.type) && !info.type.some((choice) => pyEquals(choice, val))) {
    const long = info.type.length > 20
    return {
      type: 'value_not_in_list',
      message: 'Value not in list',
      details: `${x}: '${pyStr(val)}' not in ${long ? `(list of length ${info.type.length})` : pyRepr(info.type)}`,
      extra_info: { input_name: x, input_config: long ? null : config, received_value: val },
    }
  }
  return undefined
}
