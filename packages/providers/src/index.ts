export * from './contract'
export * from './runtimes/runtime'
