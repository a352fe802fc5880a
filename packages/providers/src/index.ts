export * from './contract'
