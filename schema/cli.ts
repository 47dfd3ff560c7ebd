/** `npm run migrate`: applies pending migrations to DATABASE_URL and checks the embedding dimension. */
import pg from 'pg';
import { databaseVars, embeddingVars, loadConfig } from '../lib/config.ts';
import { createLogger } from '../lib/log.ts';
import { checkEmbeddingDimension, migrate } from './migrate.ts';

const log = createLogger('migrate');
const config = loadConfig({ ...databaseVars, ...embeddingVars });
const result = await migrate(config.DATABASE_URL, log);
const client = new pg.Client({ connectionString: config.DATABASE_URL });
await client.connect();
try {
  await checkEmbeddingDimension(client, config.EMBEDDING_DIM);
} finally {
  await client.end();
}
log.info('migrations_done', { applied: result.applied, current: result.current });
