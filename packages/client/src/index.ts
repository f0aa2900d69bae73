export {
  createDirectoryClient,
  type DirectoryClient,
  type DirectoryClientOptions,
  type DirectoryComponents,
  type DirectoryErrorBody,
  type DirectoryPaths,
} from './directory.ts'
export {
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
  type PlatformComponents,
  type PlatformErrorBody,
  type PlatformPaths,
  type PlatformTokens,
} from './platform.ts'
