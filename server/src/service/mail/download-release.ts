import { createError } from '@godb/contract';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { UseCaseOf } from '../context.js';
import { FileResult } from '../file-result.js';
import type { MailDeps } from './deps.js';

export const downloadReleaseUseCase =
  (deps: MailDeps): UseCaseOf<'download-release'> =>
  async ({ params, query }) => {
    deps.links.verify(params.file, query.expires, query.signature);
    const path = join(deps.mail.releaseDir, params.file);
    if (!existsSync(path))
      throw createError('NOT_FOUND', {
        resource: 'Release',
        id: `${params.file} (the operator has not run npm run package yet)`,
      });
    return new FileResult(path, params.file, 'application/gzip') as never;
  };
