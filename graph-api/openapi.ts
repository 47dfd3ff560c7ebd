export const openApiDocument: Record<string, unknown> = {
  openapi: '3.1.0',
  info: { title: 'graph', version: '0.1.0' },
  paths: {},
};
