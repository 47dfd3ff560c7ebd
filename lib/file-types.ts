/** The file types of the specification (a File vertex's `type`), as the read API filters and counts them. */
export const FILE_TYPES = ['source', 'test', 'config', 'script', 'doc', 'data', 'asset', 'service'] as const;
export type FileTypeName = (typeof FILE_TYPES)[number];
