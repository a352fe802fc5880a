/**
 * The character codes of JSON's structural characters and white space, for the scanners that read a
 * body without parsing it (usage.ts, model-splice.ts). All ASCII: the same as bytes in UTF-8, where
 * no byte of a multi-byte character is below 0x80.
 */
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const COLON = 0x3a
export const OPEN_OBJECT = 0x7b
export const CLOSE_OBJECT = 0x7d
export const OPEN_ARRAY = 0x5b
export const CLOSE_ARRAY = 0x5d
export const SPACE = 0x20
export const TAB = 0x09
export const LINE_FEED = 0x0a
export const CARRIAGE_RETURN = 0x0d
