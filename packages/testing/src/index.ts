export * from './api-process'
export * from './require-part'
